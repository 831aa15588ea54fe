"""Bearer tokens for the HTTP transport: each token names one user; no token, no kitchen.

Static tokens come from a JSON file (`ALFRED_TOKENS_FILE`: {"<token>": "<user handle>"}) and/or
the environment (`ALFRED_TOKENS="tok1=alice,tok2=bob"`); with an external OAuth authorization
server configured, its JWT access tokens are accepted too (`server/oauth.py`, the user is the
token's `sub` at its `iss`). Each origin is its own namespace (`store/user_origins.py`): the
static token user alice is `token:alice`, never the issuer's alice. `BearerGate` answers 401 to a request to /mcp without a valid token, before it
reaches the server, saying how to send one; `ActingUserMiddleware` makes every authenticated MCP
message act for its own user.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ConfigError
from alfred_mcp.store.user_origins import static_user

TOKENS_FILE_ENV = "ALFRED_TOKENS_FILE"
TOKENS_ENV = "ALFRED_TOKENS"
MIN_TOKEN_LENGTH = 16


def load_tokens(file: str | None = None, pairs: str | None = None, *, required: bool = True) -> dict[str, str]:
    """Token → user handle from a JSON file and/or `tok=handle,...` text (env when not given).

    Raises:
        ConfigError: unreadable file, bad format, a short token, or no token at all when `required`.
    """
    file = file if file is not None else os.environ.get(TOKENS_FILE_ENV)
    pairs = pairs if pairs is not None else os.environ.get(TOKENS_ENV)
    from_file = _checked(_from_file(Path(file)), f"{TOKENS_FILE_ENV}={file}") if file else {}
    tokens = {**from_file, **(_checked(_from_pairs(pairs), TOKENS_ENV) if pairs else {})}
    if not tokens and required:
        raise ConfigError(f"Serving over HTTP needs bearer tokens: set {TOKENS_FILE_ENV} or {TOKENS_ENV} "
                          "(or --oauth-issuer for an OAuth authorization server).", field="tokens")
    return tokens


def _checked(tokens: dict[str, str], source: str) -> dict[str, str]:
    """`tokens` when each has at least MIN_TOKEN_LENGTH characters and names a user.

    Raises:
        ConfigError: naming `source` (the variable, and the file it names) and the user, never the token.
    """
    for token, handle in tokens.items():
        if len(token) < MIN_TOKEN_LENGTH or not handle:
            raise ConfigError(
                f"{source}: each token must have at least {MIN_TOKEN_LENGTH} characters and name a user (user {handle!r}).",
                field="tokens",
            )
    return tokens


def _from_file(path: Path) -> dict[str, str]:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError.unreadable_json(TOKENS_FILE_ENV, path, error) from error
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError(f'{TOKENS_FILE_ENV}={path}: the file must hold a JSON object {{"<token>": "<user handle>"}}.',
                          field="tokens_file")
    return {key.strip(): value.strip() for key, value in data.items()}


def _from_pairs(text: str) -> dict[str, str]:
    tokens: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        token, sep, handle = pair.partition("=")
        if not sep:
            raise ConfigError(f"{TOKENS_ENV} takes 'token=user' pairs separated by commas.", field="tokens")
        tokens[token.strip()] = handle.strip()
    return tokens


class TokenRefused(Exception):
    """A verifier knows this token is not valid and says why (`reason`, one clause: the 401's description)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TokenUsers:
    """The SDK's TokenVerifier over a fixed token → user map (compared in constant time)."""

    def __init__(self, tokens: Mapping[str, str]) -> None:
        self._tokens = [(token.encode(), handle) for token, handle in tokens.items()]

    async def verify_token(self, token: str) -> AccessToken | None:
        given = token.encode()
        handle = None
        for known, user in self._tokens:
            if hmac.compare_digest(known, given):
                handle = user
        if handle is None:
            return None
        return AccessToken(token=token, client_id=handle, scopes=[], subject=static_user(handle))


class ActingUserMiddleware:
    """Every request with an authenticated token acts for that token's user (created on first use)."""

    def __init__(self, app: AlfredApp) -> None:
        self.app = app

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        token = get_access_token()
        if token is None or token.subject is None:
            return await call_next(ctx)
        user_id = await self.app.user_for(token.subject)
        with self.app.acting_as(user_id):
            return await call_next(ctx)


class Verifiers:
    """Several token verifiers as one: the first that knows the token names its user."""

    def __init__(self, *verifiers: TokenVerifier) -> None:
        self._verifiers = verifiers

    async def verify_token(self, token: str) -> AccessToken | None:
        """The first verifier's user for `token`; None when none knows it.

        Raises:
            TokenRefused: no verifier accepts it and one said why.
        """
        refused: TokenRefused | None = None
        for verifier in self._verifiers:
            try:
                found = await verifier.verify_token(token)
            except TokenRefused as refusal:
                refused = refused or refusal
                continue
            if found is not None:
                return found
        if refused is not None:
            raise refused
        return None


class BearerGate:
    """ASGI: requests to `path` need `Authorization: Bearer <token>` (401 saying how, 403 for a missing scope).

    An accepted token becomes the request's user (`scope["user"]`, as the SDK's bearer middleware
    sets it), which binds each handshake-era session to its creator and names the acting user.
    """

    def __init__(self, app: ASGIApp, verifier: TokenVerifier, *, path: str, challenge: str, hint: str,
                 scopes: tuple[str, ...] = ()) -> None:
        """`challenge` is the WWW-Authenticate value's parameters (realm, resource_metadata); `hint` says how to get a token."""
        self.app, self.verifier, self.path = app, verifier, path
        self.challenge, self.hint, self.scopes = challenge, hint, scopes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        why = ": this server does not know it"
        try:
            found = await self.verifier.verify_token(token) if token else None
        except TokenRefused as refused:
            found, why = None, f": {refused.reason}"
        if found is None:
            error = "invalid_token" if token else None
            reason = f"The bearer token is not valid{why}." if token else "This server needs a bearer token."
            await _refuse(send, 401, self.challenge, error, f"{reason} Send the header 'Authorization: Bearer <token>'; {self.hint}")
            return
        missing = [name for name in self.scopes if name not in found.scopes]
        if missing:
            await _refuse(send, 403, self.challenge, "insufficient_scope", f"The token lacks the {'scope' if len(missing) == 1 else 'scopes'}: {' '.join(missing)}.")
            return
        scope = {**scope, "user": AuthenticatedUser(found), "auth": AuthCredentials(found.scopes)}
        await self.app(scope, receive, send)


def _bearer(scope: Scope) -> str | None:
    for key, value in scope["headers"]:
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if scheme.lower() == "bearer" else None
    return None


async def _refuse(send: Send, status: int, challenge: str, error: str | None, description: str) -> None:
    quoted = "".join("'" if char in '"\\' else char for char in description if char.isascii() and char.isprintable())
    parameters = [challenge] + ([f'error="{error}"', f'error_description="{quoted}"'] if error else [])
    body = json.dumps({"error": error or "invalid_request", "error_description": description}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"www-authenticate", f"Bearer {', '.join(parameters)}".encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

"""Bearer tokens for the HTTP transport: each token names one user; no token, no kitchen.

Tokens come from a JSON file (`ALFRED_TOKENS_FILE`: {"<token>": "<user handle>"}) and/or the
environment (`ALFRED_TOKENS="tok1=alice,tok2=bob"`). The SDK's bearer middleware answers 401
to a request without a valid token before it reaches the server; `ActingUserMiddleware` makes
every authenticated request act for its own user.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ConfigError

TOKENS_FILE_ENV = "ALFRED_TOKENS_FILE"
TOKENS_ENV = "ALFRED_TOKENS"
MIN_TOKEN_LENGTH = 16


def load_tokens(file: str | None = None, pairs: str | None = None) -> dict[str, str]:
    """Token → user handle from a JSON file and/or `tok=handle,...` text (env when not given).

    Raises:
        ConfigError: unreadable file, bad format, a short token, or no token at all.
    """
    file = file if file is not None else os.environ.get(TOKENS_FILE_ENV)
    pairs = pairs if pairs is not None else os.environ.get(TOKENS_ENV)
    tokens = {**(_from_file(Path(file)) if file else {}), **(_from_pairs(pairs) if pairs else {})}
    if not tokens:
        raise ConfigError(f"Serving over HTTP needs bearer tokens: set {TOKENS_FILE_ENV} or {TOKENS_ENV}.", field="tokens")
    for token, handle in tokens.items():
        if len(token) < MIN_TOKEN_LENGTH or not handle:
            raise ConfigError(
                f"Each token must have at least {MIN_TOKEN_LENGTH} characters and name a user (user {handle!r}).",
                field="tokens",
            )
    return tokens


def _from_file(path: Path) -> dict[str, str]:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"Cannot read the tokens file {path}: {error}", field="tokens_file") from error
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError('The tokens file must be a JSON object {"<token>": "<user handle>"}.', field="tokens_file")
    return {key.strip(): value.strip() for key, value in data.items()}


def _from_pairs(text: str) -> dict[str, str]:
    tokens: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        token, sep, handle = pair.partition("=")
        if not sep:
            raise ConfigError(f"{TOKENS_ENV} takes 'token=user' pairs separated by commas.", field="tokens")
        tokens[token.strip()] = handle.strip()
    return tokens


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
        return AccessToken(token=token, client_id=handle, scopes=[], subject=handle)


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

"""An external OAuth 2.1 authorization server: its JWT access tokens, and the metadata that points clients to it.

Only when an issuer is configured (`--oauth-issuer`) does the server publish protected-resource
metadata (RFC 9728) and name it in its 401 challenge; otherwise an OAuth-capable client would be
sent to an authorization server that does not exist. Tokens are verified with PyJWT against the
issuer's JWKS (`jwks.py`: cached, fetched at a bounded rate, behind a breaker): signature (asymmetric
algorithms only), `iss`, `aud` (this server's resource URL unless configured), `exp`, and `sub`, which
names the user at this issuer (`oauth:<iss>#<sub>`: never a static token's user or the local user).
A token the issuer's keys cannot check now is refused (401 saying why); it never delays anyone else.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import jwt
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url
from pydantic import AnyHttpUrl
from starlette.types import ASGIApp, Receive, Scope, Send

from alfred_mcp.config import OAuthSettings
from alfred_mcp.errors import ConfigError
from alfred_mcp.server.auth import TokenRefused
from alfred_mcp.server.jwks import JwksCache, KeysUnavailable
from alfred_mcp.store.user_origins import issuer_user

logger = logging.getLogger(__name__)
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
"""Asymmetric signatures only: a shared-secret (HS*) token would let anyone holding the JWKS sign one."""
VERIFY_THREADS = 2
"""Worker threads signature checks may hold at once: their own limiter, never the store's."""
LEEWAY = 30
"""Seconds of clock skew allowed on `exp`."""
METADATA_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


def metadata_path(resource: str) -> str:
    """Where this resource's protected-resource metadata is served, e.g. /.well-known/oauth-protected-resource/mcp."""
    return urlsplit(str(build_resource_metadata_url(AnyHttpUrl(resource)))).path


async def discover_jwks_url(oauth: OAuthSettings) -> str:
    """The issuer's `jwks_uri`, from its authorization-server (RFC 8414) or OpenID metadata.

    Raises:
        ConfigError: neither metadata document names a JWKS for this issuer.
    """
    if oauth.jwks_url is not None:
        return oauth.jwks_url
    split = urlsplit(oauth.issuer)
    async with httpx2.AsyncClient(timeout=10) as client:
        for well_known in METADATA_PATHS:
            url = f"{split.scheme}://{split.netloc}{well_known}{split.path.rstrip('/')}"
            try:
                response = await client.get(url)
                document: Any = response.json() if response.status_code == 200 else None
            except (httpx2.HTTPError, ValueError) as error:
                logger.info("no authorization server metadata at %s: %s", url, error)
                continue
            if isinstance(document, dict) and document.get("issuer") == oauth.issuer and isinstance(document.get("jwks_uri"), str):
                return str(document["jwks_uri"])
    raise ConfigError(f"Cannot find the JWKS of the OAuth issuer {oauth.issuer}: its metadata ({', '.join(METADATA_PATHS)}) "
                      "is unreachable or names another issuer. Set ALFRED_OAUTH_JWKS_URL, or check the issuer URL.",
                      field="oauth_issuer")


class JwtVerifier:
    """The SDK's TokenVerifier for JWT access tokens signed by the issuer's keys.

    Everything that can be judged without the keys is judged first, without a network call: a token
    that is not a JWT is someone else's (None); a JWT with another issuer or audience, expired, without
    a subject or with a symmetric algorithm is refused (`TokenRefused`, saying why). Only then are the
    keys asked for (`jwks.JwksCache`: never a worker thread, bounded in time and rate), and the
    signature is checked in a thread of this verifier's own small limiter, never one the store's
    queries wait for.
    """

    def __init__(self, oauth: OAuthSettings, jwks_url: str, resource: str, *, keys: JwksCache | None = None) -> None:
        self.issuer = oauth.issuer
        self.audience = oauth.audience or resource
        self.keys = keys if keys is not None else JwksCache(jwks_url)
        self._limiter = anyio.CapacityLimiter(VERIFY_THREADS)

    async def verify_token(self, token: str) -> AccessToken | None:
        unverified = _unverified(token)
        if unverified is None:
            return None
        header, claims = unverified
        self._judge_unverified(header, claims)
        try:
            key = await self.keys.signing_key(header.get("kid") if isinstance(header.get("kid"), str) else None)
        except KeysUnavailable as error:
            raise TokenRefused(f"it cannot be checked now: {error.reason}") from None
        try:
            checked = await anyio.to_thread.run_sync(self._decode, token, key, limiter=self._limiter)
        except jwt.PyJWTError as error:
            logger.info("refused an access token: %s", error)
            raise TokenRefused(f"its signature or claims do not check out ({error})") from None
        subject = str(checked["sub"])
        scopes = str(checked.get("scope", "")).split()
        client = str(checked.get("client_id") or checked.get("azp") or subject)
        return AccessToken(token=token, client_id=client, scopes=scopes, expires_at=checked.get("exp"),
                           subject=issuer_user(self.issuer, subject), claims={"iss": checked["iss"]})

    def _judge_unverified(self, header: dict[str, Any], claims: dict[str, Any]) -> None:
        """Raises TokenRefused for what the claims and header alone show is not this issuer's token for this server."""
        if header.get("alg") not in ALGORITHMS:
            raise TokenRefused(f"its algorithm {header.get('alg')!r} is not accepted (asymmetric signatures only)")
        if claims.get("iss") != self.issuer:
            raise TokenRefused(f"it was not issued by {self.issuer}")
        audience = claims.get("aud")
        if self.audience not in (audience if isinstance(audience, list) else [audience]):
            raise TokenRefused(f"it is not meant for this server (aud must name {self.audience})")
        expires = claims.get("exp")
        if not isinstance(expires, int | float) or isinstance(expires, bool) or expires <= time.time() - LEEWAY:
            raise TokenRefused("it has expired" if isinstance(expires, int | float) else "it has no expiry (exp)")
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject.strip():
            raise TokenRefused("it names no user: its subject (sub) is missing or empty")

    def _decode(self, token: str, key: jwt.PyJWK) -> dict[str, Any]:
        claims: dict[str, Any] = jwt.decode(
            token, key.key, algorithms=ALGORITHMS, audience=self.audience, issuer=self.issuer, leeway=LEEWAY,
            options={"require": ["exp", "iss", "aud", "sub"]},
        )
        return claims


def _unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The header and claims of a JWT, unchecked (None: `token` is not a JWT at all)."""
    if token.count(".") != 2:
        return None
    try:
        header = jwt.get_unverified_header(token)
        claims: Any = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return None
    return (header, claims) if isinstance(claims, dict) else None


class ResourceMetadata:
    """ASGI: serves the protected-resource metadata document at `path` (public, any origin); passes the rest on."""

    def __init__(self, app: ASGIApp, *, path: str, resource: str, oauth: OAuthSettings) -> None:
        self.app, self.path = app, path
        document = {"resource": resource, "authorization_servers": [oauth.issuer], "bearer_methods_supported": ["header"],
                    "resource_name": "alfred-mcp", **({"scopes_supported": list(oauth.scopes)} if oauth.scopes else {})}
        self.body = json.dumps(document).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        allowed = scope["method"] in ("GET", "HEAD", "OPTIONS")
        body = self.body if allowed else b'{"error":"method not allowed"}'
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"access-control-allow-origin", b"*"), (b"access-control-allow-headers", b"mcp-protocol-version"),
                   (b"cache-control", b"public, max-age=3600")]
        await send({"type": "http.response.start", "status": 200 if allowed else 405, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

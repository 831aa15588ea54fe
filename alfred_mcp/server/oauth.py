"""An external OAuth 2.1 authorization server: its JWT access tokens, and the metadata that points clients to it.

Only when an issuer is configured (`--oauth-issuer`) does the server publish protected-resource
metadata (RFC 9728) and name it in its 401 challenge; otherwise an OAuth-capable client would be
sent to an authorization server that does not exist. Tokens are verified with PyJWT against the
issuer's JWKS: signature (asymmetric algorithms only), `iss`, `aud` (this server's resource URL
unless configured), `exp`, and `sub`, which names the user.
"""

from __future__ import annotations

import json
import logging
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

logger = logging.getLogger(__name__)
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
"""Asymmetric signatures only: a shared-secret (HS*) token would let anyone holding the JWKS sign one."""
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
    """The SDK's TokenVerifier for JWT access tokens signed by the issuer's keys."""

    def __init__(self, oauth: OAuthSettings, jwks_url: str, resource: str) -> None:
        self.issuer = oauth.issuer
        self.audience = oauth.audience or resource
        self._keys = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=300, timeout=10)

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.count(".") != 2:
            return None
        try:
            claims = await anyio.to_thread.run_sync(self._decode, token)
        except jwt.PyJWTError as error:
            logger.info("refused an access token: %s", error)
            return None
        subject = str(claims["sub"])
        scopes = str(claims.get("scope", "")).split()
        client = str(claims.get("client_id") or claims.get("azp") or subject)
        return AccessToken(token=token, client_id=client, scopes=scopes, expires_at=claims.get("exp"), subject=subject,
                           claims={"iss": claims["iss"]})

    def _decode(self, token: str) -> dict[str, Any]:
        key = self._keys.get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token, key.key, algorithms=ALGORITHMS, audience=self.audience, issuer=self.issuer,
            options={"require": ["exp", "iss", "aud", "sub"]},
        )
        return claims


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

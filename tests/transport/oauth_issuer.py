"""A loopback OAuth authorization server, as a real one publishes itself: RFC 8414 metadata naming its issuer and
JWKS, and the JWKS (one RSA signing key, kid k1); `signed` makes the access tokens it would issue."""

from __future__ import annotations

import json
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
"""The issuer's signing key (its JWKS publishes the public half as kid k1)."""


def authorization_server(issuer_holder: dict[str, str]) -> Starlette:
    """The issuer's metadata and JWKS; `issuer_holder["issuer"]` is its URL, known once it listens."""
    jwk = {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key())), "kid": "k1", "use": "sig", "alg": "RS256"}

    async def metadata(request: Any) -> JSONResponse:
        issuer = issuer_holder["issuer"]
        return JSONResponse({"issuer": issuer, "jwks_uri": f"{issuer}/jwks.json", "token_endpoint": f"{issuer}/token",
                             "authorization_endpoint": f"{issuer}/authorize", "response_types_supported": ["code"]})

    async def jwks(request: Any) -> JSONResponse:
        return JSONResponse({"keys": [jwk]})

    return Starlette(routes=[Route("/.well-known/oauth-authorization-server", metadata), Route("/jwks.json", jwks)])


def signed(issuer: str, audience: str, *, key: Any = KEY, kid: str = "k1", algorithm: str = "RS256", **claims: Any) -> str:
    """An access token from `issuer` for `audience` (subject carol, scope kitchen, 5 minutes); a claim given as None is left out."""
    now = int(time.time())
    body = {"iss": issuer, "aud": audience, "sub": "carol", "exp": now + 300, "iat": now, "scope": "kitchen", **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm=algorithm, headers={"kid": kid})

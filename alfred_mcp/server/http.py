"""Streamable HTTP: the MCP server as an ASGI app behind bearer tokens, served by uvicorn.

A request passes, outermost first:

0. `HealthProbes` (`health.py`): /healthz and /readyz, answered without a token, and `MetricsEndpoint`
   (`metrics.py`): /metrics with its own scrape token, when one is set; both before the Host check
   (orchestrators and Prometheus reach a replica at its own address).
1. `RequestGuard` (`http_guard.py`): Host must name this server (421), Origin too on /mcp (403),
   before anything else, authentication included; CORS preflights are answered here.
2. `ResourceMetadata` (`oauth.py`): the protected-resource metadata, served only when an external
   OAuth authorization server is configured.
3. `BearerGate` (`auth.py`): a static token or a JWT from that issuer (401 saying why and how to send one);
   the issuer's keys are cached and fetched without a worker thread, at a bounded rate (`jwks.py`).
4. `MessageGate` (`http_guard.py`): a protocol version this server speaks, one JSON-RPC message per POST.
5. The SDK's streamable HTTP transport; handshake-era (2025-11-25) sessions close after an idle
   timeout and are capped in number (`HttpSettings`).
"""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Callable, Mapping

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.provider import TokenVerifier
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import HttpSettings
from alfred_mcp.errors import ConfigError
from alfred_mcp.server.auth import TOKENS_ENV, TOKENS_FILE_ENV, BearerGate, TokenUsers, Verifiers
from alfred_mcp.server.health import HealthProbes
from alfred_mcp.server.http_guard import MessageGate, RequestGuard
from alfred_mcp.server.jwks import JwksCache
from alfred_mcp.server.logs import event
from alfred_mcp.server.mcp_server import AlfredServer, build_server
from alfred_mcp.server.metrics import CountedModel, Metrics, MetricsEndpoint
from alfred_mcp.server.oauth import JwtVerifier, ResourceMetadata, discover_jwks_url, metadata_path

logger = logging.getLogger(__name__)
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
ALLOWED_HOSTS_ENV = "ALFRED_ALLOWED_HOSTS"
MCP_PATH = "/mcp"


def parse_address(text: str) -> tuple[str, int]:
    """'127.0.0.1:8765' → ('127.0.0.1', 8765).

    Raises:
        ConfigError: not HOST:PORT with a port in 1..65535.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765 (got {text!r}).", field="http", value=text)
    return host, int(port)


HOST_NAME = re.compile(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?")


def allowed_hosts(text: str) -> list[str]:
    """ALFRED_ALLOWED_HOSTS: host names or addresses, comma-separated, without scheme, port or path.

    Raises:
        ConfigError: an entry that is not a bare host name, naming it.
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if not HOST_NAME.fullmatch(name):
            raise ConfigError(f"{ALLOWED_HOSTS_ENV} takes host names or addresses such as kitchen.example,10.0.0.5, without "
                              f"scheme, port or path (got {name!r}).", field=ALLOWED_HOSTS_ENV, value=name)
    return names


def transport_security(host: str, extra_hosts: str | None = None) -> TransportSecuritySettings:
    """DNS-rebinding protection: Host/Origin must name this host (all loopback names when it is
    loopback) or one of `extra_hosts` (comma-separated; env ALFRED_ALLOWED_HOSTS), e.g. the
    public name of a server bound to 0.0.0.0."""
    hosts = list(LOOPBACK) if host in (*LOOPBACK, "::1") else [host]
    hosts += allowed_hosts(extra_hosts if extra_hosts is not None else os.environ.get(ALLOWED_HOSTS_ENV, ""))
    return TransportSecuritySettings(  # each name with any port, or none (a public name on 80/443 comes without)
        enable_dns_rebinding_protection=True,
        allowed_hosts=[allowed for name in hosts for allowed in (name, f"{name}:*")],
        allowed_origins=[f"{scheme}://{allowed}" for scheme in ("http", "https") for name in hosts for allowed in (name, f"{name}:*")],
    )


def public_url(host: str, port: int, http: HttpSettings) -> str:
    """The URL clients reach the server at: --public-url, else http://HOST:PORT."""
    if http.public_url is not None:
        return http.public_url
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def http_app(
    app: AlfredApp, host: str, port: int, tokens: Mapping[str, str], *, jwks_url: str | None = None,
    keys: JwksCache | None = None, metrics_token: str | None = None,
) -> ASGIApp:
    """The ASGI app serving MCP at /mcp for the users `tokens` name (and the OAuth issuer's, given its JWKS);
    /metrics too when `metrics_token` is given.

    `keys` is the issuer's key cache (None: one for `jwks_url` with the default time, rate and breaker limits).
    """
    http = app.settings.http
    server = build_server(app, many_users=True)
    observed = _observed(app, server, metrics_token)
    resource = f"{public_url(host, port, http)}{MCP_PATH}"
    inner: ASGIApp = _sdk_app(server, host, http)
    verifiers: list[TokenVerifier] = [TokenUsers(tokens)] if tokens else []
    if http.oauth is not None and jwks_url is not None:
        metadata = metadata_path(resource)
        verifiers.append(JwtVerifier(http.oauth, jwks_url, resource, keys=keys))
        challenge = f'resource_metadata="{resource.removesuffix(MCP_PATH)}{metadata}"'
        hint = f"get one from the authorization server {http.oauth.issuer}."
        inner = BearerGate(AuthContextMiddleware(MessageGate(inner, mcp_path=MCP_PATH)), Verifiers(*verifiers), path=MCP_PATH,
                           challenge=challenge, hint=hint, scopes=http.oauth.scopes)
        inner = ResourceMetadata(inner, path=metadata, resource=resource, oauth=http.oauth)
    else:
        hint = f"this server's operator issues tokens ({TOKENS_FILE_ENV} or {TOKENS_ENV})."
        inner = BearerGate(AuthContextMiddleware(MessageGate(inner, mcp_path=MCP_PATH)), Verifiers(*verifiers), path=MCP_PATH,
                           challenge='realm="alfred-mcp"', hint=hint)
    return observed(HealthProbes(RequestGuard(inner, transport_security(host), mcp_path=MCP_PATH), app.store.check_ready))


def _observed(app: AlfredApp, server: AlfredServer, metrics_token: str | None) -> Callable[[ASGIApp], ASGIApp]:
    """With a scrape token: the server's calls and the agent's model calls counted, served at /metrics."""
    if metrics_token is None:
        return lambda asgi: asgi
    metrics = Metrics(pool_stats=getattr(app.store, "pool_stats", None))
    server.observers.append(metrics)
    if app.llm is not None:
        app.llm = CountedModel(app.llm, metrics)
    return lambda asgi: MetricsEndpoint(asgi, metrics, metrics_token)


def _sdk_app(server: AlfredServer, host: str, http: HttpSettings) -> ASGIApp:
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=transport_security(host), host=host,
        session_idle_timeout=http.session_idle_timeout, max_sessions=http.max_sessions,
    )


def check_port(host: str, port: int) -> None:
    """Raises ConfigError, before serving, when HOST:PORT cannot be listened on (in use, not an address of this machine)."""
    try:
        probe = socket.create_server((host.strip("[]"), port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as error:
        raise ConfigError(f"Cannot listen on {host}:{port}: {error.strerror or error}. Choose another --http address or port.",
                          field="http") from None
    probe.close()


async def prepare_http(http: HttpSettings, host: str, port: int) -> str | None:
    """Check, before anything opens, that HOST:PORT can be served; the OAuth issuer's JWKS URL when one is configured.

    Raises:
        ConfigError: the address cannot be listened on, or the issuer's keys cannot be found.
    """
    jwks_url = await discover_jwks_url(http.oauth) if http.oauth is not None else None
    check_port(host, port)
    return jwks_url


async def serve_http(
    app: AlfredApp, host: str, port: int, tokens: Mapping[str, str], *, jwks_url: str | None = None, metrics_token: str | None = None
) -> int:
    """Serve until interrupted (uvicorn stops on Ctrl-C or SIGTERM)."""
    import uvicorn

    oauth = app.settings.http.oauth
    asgi = http_app(app, host, port, tokens, jwks_url=jwks_url, metrics_token=metrics_token)
    logger.info("serving streamable HTTP on http://%s:%d%s for %d %s%s", host, port, MCP_PATH, len(tokens), "token" if len(tokens) == 1 else "tokens",
                f" and the OAuth issuer {oauth.issuer}" if oauth else "",
                extra=event("serving", transport="http", host=host, port=port, tokens=len(tokens), metrics=metrics_token is not None))
    server = uvicorn.Server(uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on"))
    try:
        await server.serve()
    finally:
        logger.info("stopped serving HTTP", extra=event("stopped", transport="http"))
    return 0

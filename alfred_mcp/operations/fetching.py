"""Fetch one recipe page over http(s): bounded in time and size, checked for content type and address.

Serving many users (HTTP), a URL may not reach private, loopback, link-local or otherwise non-public
addresses unless the host allows those networks (`ALFRED_IMPORT_ALLOW_NETWORKS`): the server is not
a way into its own network. An IPv6 address that carries an IPv4 one (NAT64, 6to4, Teredo, mapped...) is
judged by the IPv4 address it reaches (`addresses.py`). The check runs on every address the name resolves to, on every redirect,
and the connection goes to the address that was checked (no second DNS answer can swap it).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import anyio
import httpx2

from alfred_mcp.errors import ImportSourceError
from alfred_mcp.operations.addresses import IpAddress, IpNetwork, non_public

TEXT_TYPES = ("text/html", "application/xhtml+xml", "application/ld+json", "application/json", "text/plain")
USER_AGENT = "alfred-mcp recipe import (+https://modelcontextprotocol.io)"


@dataclass(frozen=True)
class FetchPolicy:
    """How a fetch is bounded."""

    block_private: bool = False
    """Refuse non-public addresses (serving many users) unless they are in `allowed_networks`."""
    allowed_networks: tuple[IpNetwork, ...] = ()
    max_bytes: int = 5_000_000
    timeout: float = 20.0
    """Seconds for the whole fetch, redirects included."""
    connect_timeout: float = 5.0
    max_redirects: int = 5


@dataclass(frozen=True)
class Page:
    url: str
    content_type: str
    text: str


async def fetch_page(url: str, policy: FetchPolicy) -> Page:
    """The page at `url` (following up to `max_redirects` redirects), as text.

    Raises:
        ImportSourceError: a bad URL, a refused address, a timeout, an HTTP error status, a page larger
            than the limit, or a content type that cannot hold a recipe; each names `source`.
    """
    try:
        with anyio.fail_after(policy.timeout):
            async with httpx2.AsyncClient(
                trust_env=False, follow_redirects=False,
                timeout=httpx2.Timeout(policy.timeout, connect=policy.connect_timeout),
            ) as client:
                return await _follow(client, url, policy)
    except TimeoutError:
        raise _error(f"{url} did not answer within {policy.timeout:g} seconds.") from None
    except httpx2.HTTPError as error:
        raise _error(f"{url} could not be fetched ({type(error).__name__}).") from None


async def _follow(client: httpx2.AsyncClient, url: str, policy: FetchPolicy) -> Page:
    source = url
    for _ in range(policy.max_redirects + 1):
        target, host = await _pinned(url, policy)
        request = client.build_request(
            "GET", target, headers={"Host": host, "User-Agent": USER_AGENT, "Accept": ", ".join(TEXT_TYPES)},
            extensions={"sni_hostname": urlsplit(url).hostname or ""},
        )
        response = await client.send(request, stream=True)
        try:
            if response.is_redirect and "location" in response.headers:
                url = urljoin(url, response.headers["location"])
                continue
            return await _read(response, url, policy)
        finally:
            await response.aclose()
    raise _error(f"{source} redirected more than {policy.max_redirects} times.")  # not `url`: the next hop, never fetched


async def _read(response: httpx2.Response, url: str, policy: FetchPolicy) -> Page:
    if response.status_code >= 400:
        raise _error(f"{url} answered HTTP {response.status_code}; no recipe could be read.")
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type and content_type not in TEXT_TYPES:
        raise _error(f"{url} is {content_type}, not a recipe page (HTML, JSON-LD or text).")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise _error(f"{url} is {int(declared):,} bytes; pages over {policy.max_bytes:,} bytes are not read.")
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) > policy.max_bytes:
            raise _error(f"{url} is larger than {policy.max_bytes:,} bytes; pages that large are not read.")
    encoding = response.charset_encoding or "utf-8"
    try:
        text = bytes(body).decode(encoding, errors="replace")
    except LookupError:
        text = bytes(body).decode("utf-8", errors="replace")
    return Page(url=url, content_type=content_type or "text/html", text=text)


async def _pinned(url: str, policy: FetchPolicy) -> tuple[str, str]:
    """(the URL with its host replaced by a checked address, the Host header to send)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _error(f"{url!r} is not an http(s) URL.")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = _checked(parts.hostname, await _resolve(parts.hostname, port), policy)
    literal = f"[{address}]" if address.version == 6 else str(address)
    host_header = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{literal}:{port}", parts.path or "/", parts.query, "")), host_header


async def _resolve(host: str, port: int) -> list[IpAddress]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        answers = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise _error(f"the host {host!r} could not be resolved.") from None
    return [ipaddress.ip_address(str(answer[4][0]).split("%")[0]) for answer in answers]


def _checked(host: str, addresses: Sequence[IpAddress], policy: FetchPolicy) -> IpAddress:
    if not addresses:
        raise _error(f"the host {host!r} has no address.")
    if policy.block_private:
        for address in addresses:
            reached = non_public(address, policy.allowed_networks)
            if reached is not None:
                carried = f" (it carries {reached})" if reached != address else ""
                raise _error(
                    f"{host} is a private or loopback address ({address}{carried}); this server does not fetch those "
                    "(its host can allow networks with ALFRED_IMPORT_ALLOW_NETWORKS)."
                )
    return addresses[0]


def _error(message: str) -> ImportSourceError:
    return ImportSourceError(f"source: {message}", field="source")

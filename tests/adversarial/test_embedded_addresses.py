"""The import address check judges the IPv4 address an IPv6 address carries: every embedding x every
non-public IPv4 range is refused before any connection (no packet is sent: the URLs are address literals,
refused while the connection is being planned), and the same embeddings of public addresses pass."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.errors import ImportSourceError
from alfred_mcp.operations.addresses import embedded_ipv4, non_public
from alfred_mcp.operations.fetching import FetchPolicy, fetch_page

V4 = ipaddress.IPv4Address
V6 = ipaddress.IPv6Address

NON_PUBLIC_V4 = [
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
    "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
]
"""The IANA special-purpose IPv4 ranges that are not globally reachable (RFC 6890 and successors), multicast included."""
PUBLIC_V4 = ["8.8.8.8", "1.1.1.1", "93.184.215.14", "151.101.1.69", "203.0.114.1"]


def _low(v4: V4) -> int:
    return int(v4)


def _rfc6052(prefix: int, length: int, v4: V4) -> V6:
    """RFC 6052 section 2.2: the IPv4 bits after `length` bits of prefix, bits 64-71 (the u octet) left zero."""
    bits = int(v4)
    if length == 96:
        return V6(prefix | bits)
    left = 64 - length  # IPv4 bits that fit before the u octet
    high = bits >> (32 - left) if left else 0
    rest = bits & ((1 << (32 - left)) - 1)
    return V6(prefix | high << 64 | rest << (56 - (32 - left)))


NAT64_LOCAL = int(V6("64:ff9b:1::"))
EMBEDDINGS: dict[str, Callable[[V4], V6]] = {
    "ipv4-mapped ::ffff:0:0/96": lambda a: V6(f"::ffff:{a}"),
    "ipv4-translated ::ffff:0:0:0/96": lambda a: V6(0xFFFF << 48 | _low(a)),
    "ipv4-compatible ::/96": lambda a: V6(_low(a)),
    "nat64 64:ff9b::/96": lambda a: V6(f"64:ff9b::{a}"),
    "nat64 local 64:ff9b:1::/48 as /96": lambda a: _rfc6052(NAT64_LOCAL, 96, a),
    "nat64 local 64:ff9b:1::/48 as /64": lambda a: _rfc6052(NAT64_LOCAL, 64, a),
    "nat64 local 64:ff9b:1::/48 as /56": lambda a: _rfc6052(NAT64_LOCAL, 56, a),
    "nat64 local 64:ff9b:1::/48 as /48": lambda a: _rfc6052(NAT64_LOCAL, 48, a),
    "6to4 2002::/16": lambda a: V6(int(V6("2002::")) | _low(a) << 80 | 1),
    "teredo server 2001::/32": lambda a: V6(int(V6("2001::")) | _low(a) << 64 | (~int(V4("8.8.4.4")) & 0xFFFFFFFF)),
    "teredo client (obfuscated) 2001::/32": lambda a: V6(int(V6("2001::")) | int(V4("8.8.4.4")) << 64 | (~_low(a) & 0xFFFFFFFF)),
    "isatap ::0:5efe:a.b.c.d": lambda a: V6(int(V6("2606:4700::")) | 0x00005EFE << 32 | _low(a)),
    "isatap ::200:5efe:a.b.c.d": lambda a: V6(int(V6("2606:4700::")) | 0x02005EFE << 32 | _low(a)),
}
CARRY_PUBLIC = [name for name in EMBEDDINGS if "local" not in name]
"""Every embedding but the local-use NAT64 prefix, which is local whatever it carries."""


def _samples(network: str) -> list[V4]:
    net = ipaddress.IPv4Network(network)
    return sorted({net[0], net[-1], net[net.num_addresses // 2]})


CASES = [(name, network, address) for name in EMBEDDINGS for network in NON_PUBLIC_V4 for address in _samples(network)]


@pytest.mark.parametrize(("embedding", "network", "address"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_every_embedding_of_a_non_public_ipv4_address_is_refused(embedding: str, network: str, address: V4) -> None:
    wrapped = EMBEDDINGS[embedding](address)
    own = wrapped in (V6("::"), V6("::1"))  # ::0.0.0.0 and ::0.0.0.1 are IPv6's unspecified and loopback addresses
    assert own or address in embedded_ipv4(wrapped)
    assert non_public(wrapped) is not None, f"{wrapped} carries {address} ({network})"


@pytest.mark.parametrize("embedding", list(EMBEDDINGS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_address_of_a_non_public_range_is_refused_in_every_embedding(embedding: str, data: st.DataObject) -> None:
    network = ipaddress.IPv4Network(data.draw(st.sampled_from(NON_PUBLIC_V4)))
    address = V4(data.draw(st.integers(int(network[0]), int(network[-1]))))
    assert non_public(EMBEDDINGS[embedding](address)) is not None


@pytest.mark.parametrize("embedding", CARRY_PUBLIC)
@pytest.mark.parametrize("public", PUBLIC_V4)
def test_an_embedding_of_a_public_ipv4_address_is_judged_by_that_address(embedding: str, public: str) -> None:
    assert non_public(EMBEDDINGS[embedding](V4(public))) is None


@pytest.mark.parametrize("embedding", list(EMBEDDINGS))
def test_a_network_the_host_allows_is_allowed_in_every_embedding(embedding: str) -> None:
    """ALFRED_IMPORT_ALLOW_NETWORKS=10.0.0.0/8 allows 10.1.2.3 however it is written (the other Teredo end is public)."""
    allowed = (ipaddress.IPv4Network("10.0.0.0/8"),)
    wrapped = EMBEDDINGS[embedding](V4("10.1.2.3"))
    expected = None if "local" not in embedding else non_public(wrapped, allowed)
    assert non_public(wrapped, allowed) == expected
    assert expected is None or expected != V4("10.1.2.3"), "only the local NAT64's other layouts may still refuse"


@pytest.mark.parametrize("address", ["::1", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "ff0e::1", "::", "2001:db8::1"])
def test_plain_ipv6_addresses_that_are_not_public_are_refused(address: str) -> None:
    assert non_public(V6(address)) == V6(address)


@pytest.mark.parametrize("embedding", list(EMBEDDINGS))
@pytest.mark.anyio
async def test_an_import_url_naming_an_embedded_loopback_address_is_refused_before_connecting(embedding: str) -> None:
    wrapped = EMBEDDINGS[embedding](V4("127.0.0.1"))
    with pytest.raises(ImportSourceError) as refused:
        await fetch_page(f"http://[{wrapped}]:9/recipe", FetchPolicy(block_private=True, timeout=2))
    assert refused.value.fields == {"field": "source"}
    assert f"is a private or loopback address ({wrapped} (it carries " in refused.value.message

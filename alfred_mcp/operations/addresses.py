"""Which addresses a packet to an IP address really reaches: the IPv4 addresses an IPv6 address carries.

An IPv6 address can name an IPv4 host: IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96),
IPv4-compatible (::/96), NAT64 (64:ff9b::/96, and the local-use 64:ff9b:1::/48 in any RFC 6052 layout),
6to4 (2002::/16), Teredo (2001::/32: its server and its obfuscated client) and ISATAP interface
identifiers (::0:5efe:a.b.c.d, ::200:5efe:a.b.c.d). An address check judges those IPv4 addresses,
never the wrapper: `64:ff9b::127.0.0.1` is loopback.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
COMPATIBLE = ipaddress.IPv6Network("::/96")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
TEREDO = ipaddress.IPv6Network("2001::/32")
ISATAP_IDS = (0x0000_5EFE, 0x0200_5EFE)
"""The high 32 bits of an ISATAP interface identifier (the u bit clear or set); its low 32 bits are the IPv4."""
RFC6052_LAYOUTS = (48, 56, 64, 96)
"""Prefix lengths a local-use NAT64 prefix (a /48 or longer) may have; bits 64-71 never carry the IPv4."""
NEVER_PUBLIC = (ipaddress.IPv4Network("192.0.0.0/24"), ipaddress.IPv4Network("192.88.99.0/24"))
"""IETF protocol assignments and the retired 6to4 relay anycast: `is_global` lets a few of their addresses pass."""
_LAST_32 = 0xFFFF_FFFF


def embedded_ipv4(address: IpAddress) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses `address` carries (none for an IPv4 address or a plain IPv6 one)."""
    if address.version == 4 or address.is_loopback or address.is_unspecified:
        return ()  # ::1 and :: are IPv6's own, not IPv4-compatible addresses
    assert isinstance(address, ipaddress.IPv6Address)
    value = int(address)
    low = ipaddress.IPv4Address(value & _LAST_32)
    if address in MAPPED or address in TRANSLATED or address in COMPATIBLE or address in NAT64:
        return (low,)
    if address in NAT64_LOCAL:
        return tuple(_rfc6052(value, length) for length in RFC6052_LAYOUTS)
    if address in SIX_TO_FOUR:
        return (ipaddress.IPv4Address((value >> 80) & _LAST_32),)
    if address in TEREDO:
        return (ipaddress.IPv4Address((value >> 64) & _LAST_32), ipaddress.IPv4Address(~value & _LAST_32))
    if (value >> 32) & _LAST_32 in ISATAP_IDS:
        return (low,)
    return ()


def _rfc6052(value: int, prefix_length: int) -> ipaddress.IPv4Address:
    """The IPv4 address at the position RFC 6052 gives it after a prefix of `prefix_length` bits."""
    without_u = (value >> 64) << 56 | (value & ((1 << 56) - 1))  # 120 bits: octet 8 (bits 64-71) dropped
    start = prefix_length if prefix_length <= 64 else prefix_length - 8
    return ipaddress.IPv4Address((without_u >> (120 - start - 32)) & _LAST_32)


def non_public(address: IpAddress, allowed: Sequence[IpNetwork] = ()) -> IpAddress | None:
    """The address a packet to `address` would reach that is not public (nor in `allowed`); None when all are.

    An address that carries IPv4 addresses is judged by them alone; an allowed network may name either form.
    """
    if any(address in network for network in allowed):
        return None
    for reached in embedded_ipv4(address) or (address,):
        if not is_public(reached) and not any(reached in network for network in allowed):
            return reached
    return None


def is_public(address: IpAddress) -> bool:
    """A unicast address reachable on the internet (not private, loopback, link-local, shared, reserved, multicast)."""
    return (address.is_global and not address.is_multicast and not address.is_reserved
            and not any(address in network for network in NEVER_PUBLIC))

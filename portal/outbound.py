"""Checks on outbound URLs that come from user input (a reseller's provider base URL, the
webhook URLs the sandbox delivers events to).

A base URL must be https and every address its host resolves to must be globally routable:
otherwise a tenant could make the portal's workers call its internal network with a provider key
attached. "Globally routable" is `ipaddress`'s `is_global`, and not multicast or reserved, with
the gaps of Python 3.11's tables closed explicitly: 192.0.0.0/24 (IETF protocol assignments) and
fec0::/10 (deprecated site-local) are refused, and an IPv6 address that carries an IPv4 one
(IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by that IPv4 address
as well, since the network delivers it there. `PROVIDER_ALLOW_PRIVATE_HOSTS` (on for the demo
and tests, off in production) allows such hosts, and plain http to them, for the embedded
sandbox.

`url_origin` names where a URL's requests go (scheme, host, port), so that a provider key can
be bound to the address it was entered for.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class UnsafeURL(ValueError):
    """The URL may not be called; the message says why and names no secret."""


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise UnsafeURL(f"The host {host!r} does not resolve.") from exc
    return [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]


# Not global, though Python 3.11's `is_global` says they are (later versions fix some of them).
_NOT_GLOBAL = (
    ipaddress.ip_network("192.0.0.0/24"),  # IETF protocol assignments; 3.11 knows only the /29
    ipaddress.ip_network("fec0::/10"),  # deprecated site-local, still routed inside some sites
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a packet to this IPv6 address ends up at, if the form carries one."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF)
    return address.sixtofour


def _is_internal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None and _is_internal(embedded):
            return True
        if embedded is not None and address not in _SIX_TO_FOUR:
            # Mapped and NAT64 forms are just their IPv4 address; their own prefix sits in
            # ::/8, which `is_reserved` would refuse even for a public IPv4 address. 6to4 goes
            # on to `is_global` as well, which has the last word on 2002::/16 itself.
            return False
    if any(address in network for network in _NOT_GLOBAL):
        return True
    return (not address.is_global or address.is_multicast or address.is_reserved
            or address.is_unspecified)


def check_outbound_url(url: str, *, what: str = "The URL") -> str:
    """Return the URL if it may be called, or raise UnsafeURL saying why."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UnsafeURL(f"{what} must be an http(s) URL with a host.")
    if parts.username or parts.password:
        raise UnsafeURL(f"{what} must not carry a user name or password.")
    internal = any(_is_internal(a) for a in _addresses(parts.hostname))
    allow_internal = settings.PROVIDER_ALLOW_PRIVATE_HOSTS
    if internal and not allow_internal:
        raise UnsafeURL(f"The host {parts.hostname!r} is on a private or loopback network "
                        "(or another address that is not publicly routable).")
    if parts.scheme != "https" and not (internal and allow_internal):
        raise UnsafeURL(f"{what} must use https.")
    return url


def check_provider_base_url(url: str) -> str:
    """Return the base URL without a trailing slash, or raise UnsafeURL."""
    return check_outbound_url(url, what="The base URL").rstrip("/")


_DEFAULT_PORTS = {"http": 80, "https": 443}


def url_origin(url: str) -> str:
    """The URL's origin as "scheme://host:port", normalised (case, default port, path and
    trailing slash ignored), or "" when it has none: "" never matches a stored origin."""
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError:
        return ""
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if scheme not in _DEFAULT_PORTS or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"

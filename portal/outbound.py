"""Checks on outbound URLs that come from user input (a reseller's provider base URL, the
webhook URLs the sandbox delivers events to).

A base URL must be https and must not resolve to a private, loopback, link-local or reserved
address: otherwise a tenant could make the portal's workers call its internal network with a
provider key attached. `PROVIDER_ALLOW_PRIVATE_HOSTS` (on for the demo and tests, off in
production) allows such hosts, and plain http to them, for the embedded sandbox.
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


def _is_internal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (address.is_private or address.is_loopback or address.is_link_local
            or address.is_reserved or address.is_multicast or address.is_unspecified)


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
        raise UnsafeURL(f"The host {parts.hostname!r} is on a private or loopback network.")
    if parts.scheme != "https" and not (internal and allow_internal):
        raise UnsafeURL(f"{what} must use https.")
    return url


def check_provider_base_url(url: str) -> str:
    """Return the base URL without a trailing slash, or raise UnsafeURL."""
    return check_outbound_url(url, what="The base URL").rstrip("/")

"""The text formats of the create-listing body, checked in the portal before anything is sent.

The rules are the provider's (spec/interface.md, spec/parameters.md and the choices written in
sandbox/listing_rules.py), written again here because the portal must not depend on the
stand-in provider: URLs are absolute http(s) URLs with a real host name (a domain with a
top-level label, ``localhost`` or an IP address); dates are MM/DD/YYYY; the business phone is
``(xxx) xxx-xxxx``; the maps phone is international (``+`` and 7 to 15 digits); maps categories
are dotted paths of two or more segments; doctor categories are ``Specialty > Subspecialty``.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from functools import cache
from urllib.parse import urlsplit
from zoneinfo import available_timezones

DATE_FORMAT = "%m/%d/%Y"
SECONDS_PER_DAY = 86400

PHONE_RE = re.compile(r"\(\d{3}\) \d{3}-\d{4}")
_COUNTRY_CODE_RE = re.compile(r"[A-Za-z]{2}")
_INTERNATIONAL_PHONE_RE = re.compile(r"\+\d[\d ().-]*")
_DOMAIN_RE = re.compile(
    r"(?:(?!-)[\w-]{1,63}(?<!-)\.)+(?:[^\W\d_]{2,63}|xn--[a-z0-9-]{1,59})\.?", re.IGNORECASE
)
_DATE_RE = re.compile(r"\d{2}/\d{2}/\d{4}")
_HOUR_RE = re.compile(r"(\d{1,2}):(\d{2})(?::00)?")  # a time input may add ":00" seconds


def is_host(host: str) -> bool:
    if host == "localhost" or _DOMAIN_RE.fullmatch(host):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def is_http_url(text: str) -> bool:
    if not text or any(char.isspace() for char in text):
        return False
    try:
        parts = urlsplit(text)
        host = parts.hostname
        _ = parts.port  # a malformed port raises ValueError
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and is_host(host)


def is_email(text: str) -> bool:
    local, at, domain = text.rpartition("@")
    return bool(at and local and "@" not in local
                and not any(char.isspace() for char in local) and _DOMAIN_RE.fullmatch(domain))


def is_phone(text: str) -> bool:
    return PHONE_RE.fullmatch(text) is not None


def is_international_phone(text: str) -> bool:
    digits = sum(char.isdigit() for char in text)
    return _INTERNATIONAL_PHONE_RE.fullmatch(text) is not None and 7 <= digits <= 15


def is_country_code(text: str) -> bool:
    return _COUNTRY_CODE_RE.fullmatch(text) is not None


def is_dotted_category(text: str) -> bool:
    segments = text.split(".")
    return len(segments) >= 2 and all(s and s == s.strip() for s in segments)


def is_doctor_category(text: str) -> bool:
    parts = text.split(" > ")
    return len(parts) == 2 and all(p and p == p.strip() and ">" not in p for p in parts)


@cache
def timezone_names() -> tuple[str, ...]:
    return tuple(sorted(available_timezones()))


@cache
def timezone_set() -> frozenset[str]:
    return frozenset(available_timezones())


# ---------------------------------------------------------------------------- conversions
def format_date(value: datetime.date | None) -> str:
    return value.strftime(DATE_FORMAT) if value else ""


def parse_date(text: str | None) -> datetime.date | None:
    """MM/DD/YYYY -> date; None for "" or anything else."""
    if not text or not isinstance(text, str) or not _DATE_RE.fullmatch(text):
        return None
    try:
        return datetime.datetime.strptime(text, DATE_FORMAT).date()
    except ValueError:
        return None


def hour_to_seconds(text: str, *, end: bool = False) -> int:
    """"HH:MM" -> seconds since midnight. "24:00", and "00:00" as an end, mean midnight at the
    end of the day (86400). Raises ValueError on anything else."""
    match = _HOUR_RE.fullmatch(text.strip())
    if match is None:
        raise ValueError(text)
    hours, minutes = int(match[1]), int(match[2])
    if (hours, minutes) == (24, 0) or (end and (hours, minutes) == (0, 0)):
        return SECONDS_PER_DAY
    if hours > 23 or minutes > 59:
        raise ValueError(text)
    return hours * 3600 + minutes * 60


def seconds_to_hour(seconds: int | str | None, *, for_input: bool = False) -> str:
    """Seconds since midnight -> "HH:MM"; "" stays "". The end of the day is "24:00", or
    "00:00" in a time input (which cannot show 24:00; an end of 00:00 reads back as 86400)."""
    if seconds in ("", None) or isinstance(seconds, bool) or not isinstance(seconds, int):
        return ""
    if seconds >= SECONDS_PER_DAY:
        return "00:00" if for_input else "24:00"
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"

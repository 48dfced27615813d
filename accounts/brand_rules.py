"""The rules a reseller's brand must follow: readable colours and a usable host name.

Each check returns the sentence to show next to the field, or None when the value is fine, so
that the settings page, the API and the services say the same thing.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit

from django.conf import settings

# WCAG 2 level AA for body text: the smallest contrast a colour may have with what is written on
# it or what it is written on.
MIN_CONTRAST = 4.5

# The portal's own colours (portal/static/portal/app.css), which a brand replaces.
DEFAULT_PRIMARY = "#17223b"
DEFAULT_ACCENT = "#2457c5"
# What each brand colour meets on the pages: the header's text is white; links in the accent
# colour sit on the page's light grey (and on white cards), and buttons in it carry white text.
WHITE = "#ffffff"
PAGE_BACKGROUND = "#f5f6f8"

COLOUR_RE = re.compile(r"^#[0-9a-f]{6}$")
COLOUR_FORMAT = "Write the colour as # and six hexadecimal digits, such as #17223b."

COLOUR_USES = {
    "primary_colour": ("header colour", "the white text of the header", (WHITE,)),
    "accent_colour": ("accent colour",
                      "the page's light grey background (its links) and the white text of its "
                      "buttons", (PAGE_BACKGROUND, WHITE)),
}


def colour_normalise(value: str) -> str:
    """`#ABC`, `abcdef` or ` #AbCdEf ` as `#abcdef`; anything else as typed (then refused)."""
    text = (value or "").strip().lower()
    if text and not text.startswith("#"):
        text = f"#{text}"
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        text = "#" + "".join(ch * 2 for ch in text[1:])
    return text


def _channel(value: int) -> float:
    srgb = value / 255
    return srgb / 12.92 if srgb <= 0.04045 else ((srgb + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: str) -> float:
    """WCAG 2's relative luminance of `#rrggbb`: 0 for black, 1 for white."""
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _channel(red) + 0.7152 * _channel(green) + 0.0722 * _channel(blue)


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2's contrast ratio of two `#rrggbb` colours, from 1 (the same) to 21 (black on
    white): (L1 + 0.05) / (L2 + 0.05), the lighter one's luminance over the darker one's."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)),
                             reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def colour_problem(field: str, colour: str) -> str | None:
    """Why `colour` (normalised; blank is the portal's own) cannot be the brand's `field`."""
    if not colour:
        return None
    if not COLOUR_RE.match(colour):
        return COLOUR_FORMAT
    name, meets, against = COLOUR_USES[field]
    worst = min(contrast_ratio(colour, other) for other in against)
    if worst >= MIN_CONTRAST:
        return None
    return (f"The {name} is used against {meets}: it needs a contrast of at least "
            f"{MIN_CONTRAST:g}:1 for text to stay readable (WCAG AA), and {colour} has "
            f"{_ratio_text(worst)}:1. Choose a darker colour.")


def _ratio_text(ratio: float) -> str:
    text = f"{ratio:.1f}"
    if float(text) >= MIN_CONTRAST:
        # A colour just under the rule must not read as meeting it (4.48 is not 4.5).
        text = f"{int(ratio * 100) / 100:.2f}"
    return text


# -- the host name -----------------------------------------------------------------------------

HOST_LABEL_RE = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
HOST_EXAMPLE = "portal.agency.example"


def host_normalise(value: str) -> str:
    """Lower-case, without a final dot; a name in another script in its ASCII (xn--) form."""
    text = unicodedata.normalize("NFC", (value or "").strip()).lower().rstrip(".")
    if text and not text.isascii():
        try:
            text = text.encode("idna").decode("ascii")
        except UnicodeError:
            return text
    return text


def main_hosts(request_host: str = "") -> set[str]:
    """The host names of the portal itself: its public address, and the one it is being used
    at right now (unless that is the reseller's own)."""
    hosts = {(urlsplit(settings.PORTAL_PUBLIC_URL).hostname or "").lower()}
    if request_host:
        hosts.add(request_host.rsplit(":", 1)[0].strip("[]").lower())
    hosts.discard("")
    return hosts


def host_problem(host: str, *, request_host: str = "", current: str | None = None) -> str | None:
    """Why `host` (normalised; blank is none) cannot be a reseller's own address.

    `request_host` is the address the change is made from: a reseller may not claim the main
    address the owner is using (everyone else signs in there), but may keep its own.
    """
    if not host:
        return None
    if "://" in host or "/" in host or ":" in host or "@" in host or " " in host:
        return (f"Write the host name alone, such as {HOST_EXAMPLE}: no https://, port or "
                "path.")
    if len(host) > 253:
        return "A host name has at most 253 characters."
    labels = host.split(".")
    if len(labels) < 2 or not all(HOST_LABEL_RE.match(label) for label in labels):
        return (f"{host} is not a host name: write it like {HOST_EXAMPLE}, with letters, "
                "digits and hyphens between the dots.")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return f"Use a host name such as {HOST_EXAMPLE}, not an IP address."
    if labels[-1].isdigit():
        return f"Use a host name such as {HOST_EXAMPLE}, not an IP address."
    if host in main_hosts() or (
            host != current and host in main_hosts(request_host)):
        return (f"{host} is the portal's own address, which every agency signs in at. Use a "
                f"name of the agency's own domain, such as {HOST_EXAMPLE}.")
    return None

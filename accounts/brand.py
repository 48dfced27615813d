"""A reseller's brand as everything else reads it: pages, emails, error pages and documents.

`brand_get(tenant=...)` answers a `ResellerBrand`, a plain value (no database behind it) with
the product name, colours, support address, email sender and the addresses of its logo and
stylesheet, read from the reseller's own row; `brand_logo_get(tenant=...)` answers the logo's
bytes when a renderer needs them (an email, a PDF). A reseller without a brand gets the portal's
own look. Which reseller a host name is (`brand_for_host`) is cached (`CACHE_SECONDS`) and
forgotten when a brand is saved.

What is public: a reseller's name, logo and colours are shown on the sign-in page of its own
host name to anyone who opens it; anywhere else they are shown to its members only.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import asdict, dataclass
from email.utils import formataddr, parseaddr

from django.conf import settings
from django.core.cache import cache
from django.http.request import split_domain_port
from django.urls import reverse

from accounts.brand_logo import EXTENSIONS, logo_as_png
from accounts.brand_rules import DEFAULT_ACCENT, DEFAULT_PRIMARY
from accounts.models import BrandLogo, Membership, Reseller, User

logger = logging.getLogger(__name__)

DEFAULT_PRODUCT_NAME = "Reseller portal"
CACHE_SECONDS = 300
_CACHE_VERSION = "v1"


@dataclass(frozen=True)
class ResellerBrand:
    """What a reseller's pages, emails and documents show of it; the portal's own look where it
    set nothing. Build it with `brand_get`; `DEFAULT_BRAND` is the portal's."""

    reseller_id: int | None = None
    slug: str = ""
    reseller_name: str = ""
    product_name: str = DEFAULT_PRODUCT_NAME
    has_own_name: bool = False
    primary_colour: str = ""
    accent_colour: str = ""
    support_email: str = ""
    sender_name: str = ""
    sender_email: str = ""
    host: str = ""
    logo_hash: str = ""
    logo_content_type: str = ""
    logo_width: int | None = None
    logo_height: int | None = None

    @property
    def is_default(self) -> bool:
        """Nothing of the page's look is the reseller's own (no stylesheet is needed)."""
        return not (self.has_own_name or self.primary_colour or self.accent_colour
                    or self.logo_hash)

    @property
    def header_colour(self) -> str:
        return self.primary_colour or DEFAULT_PRIMARY

    @property
    def link_colour(self) -> str:
        return self.accent_colour or DEFAULT_ACCENT

    @property
    def has_logo(self) -> bool:
        return bool(self.logo_hash)

    @property
    def logo_url(self) -> str:
        """The logo's address (its version in the query, so browsers keep it until it changes),
        or '' without one."""
        if not self.has_logo or not self.slug:
            return ""
        return f"{reverse('brand_logo', args=[self.slug])}?v={self.logo_hash[:16]}"

    @property
    def logo_file_name(self) -> str:
        return f"logo.{EXTENSIONS.get(self.logo_content_type, 'img')}"

    @property
    def stylesheet(self) -> str:
        return brand_stylesheet(self)

    @property
    def stylesheet_hash(self) -> str:
        return hashlib.sha256(self.stylesheet.encode()).hexdigest()[:16]

    @property
    def stylesheet_url(self) -> str:
        """The reseller's stylesheet, linked after the portal's own; '' when nothing of the
        look is its own."""
        if self.is_default or not self.slug:
            return ""
        return f"{reverse('brand_stylesheet', args=[self.slug])}?v={self.stylesheet_hash}"

    @property
    def from_email(self) -> str:
        """The From header of the reseller's emails: its sender name and address; its product
        name at the portal's address when it set no sender; the portal's sender otherwise."""
        default_name, default_address = parseaddr(settings.DEFAULT_FROM_EMAIL)
        name = self.sender_name or (self.product_name if self.has_own_name else "")
        if not (name or self.sender_email):
            return settings.DEFAULT_FROM_EMAIL
        return formataddr((name or default_name, self.sender_email or default_address))

    @property
    def reply_to(self) -> list[str]:
        return [self.support_email] if self.support_email else []


DEFAULT_BRAND = ResellerBrand()


def brand_stylesheet(brand: ResellerBrand) -> str:
    """The reseller's colours and logo size over the portal's stylesheet. Every value in it is
    a checked `#rrggbb`, never text a member typed."""
    rules = [":root {"]
    if brand.primary_colour:
        rules.append(f"  --brand-primary: {brand.primary_colour};")
    if brand.accent_colour:
        rules.append(f"  --accent: {brand.accent_colour};")
    rules.append("}")
    if brand.primary_colour:
        rules += [".topbar { background: var(--brand-primary); }",
                  ".switcher summary { border-color: rgba(255, 255, 255, .5); }"]
    rules += [
        ".brand { display: inline-flex; align-items: center; gap: .5rem; min-width: 0; "
        "overflow-wrap: anywhere; }",
        ".brand-logo { height: 2rem; width: auto; max-width: 8rem; object-fit: contain; "
        "flex: none; }",
    ]
    return "\n".join(rules) + "\n"


# -- reads ---------------------------------------------------------------------------------------


def _from_reseller(reseller: Reseller) -> ResellerBrand:
    return ResellerBrand(
        reseller_id=reseller.pk, slug=reseller.slug, reseller_name=reseller.name,
        product_name=reseller.brand_product_name or DEFAULT_PRODUCT_NAME,
        has_own_name=bool(reseller.brand_product_name),
        primary_colour=reseller.brand_primary_colour, accent_colour=reseller.brand_accent_colour,
        support_email=reseller.brand_support_email, sender_name=reseller.brand_sender_name,
        sender_email=reseller.brand_sender_email, host=reseller.brand_host or "",
        logo_hash=reseller.brand_logo_hash, logo_content_type=reseller.brand_logo_content_type,
        logo_width=reseller.brand_logo_width, logo_height=reseller.brand_logo_height)


def brand_get(*, tenant: Reseller) -> ResellerBrand:
    """The reseller's brand (the portal's own look where it set nothing). It is read from the
    reseller's row itself: no query."""
    return _from_reseller(tenant)


def _host_key(host: str) -> str:
    # Hashed: a host name is as long as 253 characters, more than some caches take in a key.
    return f"brand:{_CACHE_VERSION}:host:{hashlib.sha256(host.encode()).hexdigest()[:32]}"


def could_be_a_resellers_host(host: str) -> bool:
    """Whether a reseller may have `host` as its own address at all: never a name without a
    dot (localhost) nor an IP address (accounts.brand_rules refuses them)."""
    if "." not in host or host.replace(".", "").isdigit() or ":" in host:
        return False
    return True


def brand_for_host(host: str) -> ResellerBrand | None:
    """The brand of the reseller whose own address `host` is (a host name without its port,
    lower-case), or None for the portal's main address and any other."""
    if not host or not could_be_a_resellers_host(host):
        return None
    key = _host_key(host)
    try:
        cached = cache.get(key)
    except Exception:  # the cache is down: ask the database, never guess
        logger.warning("The cache could not be read; looking %s up in the database.", host)
        cached = None
    if cached is None:
        # Read before any tenant scope exists: the host decides which reseller it is.
        reseller = Reseller.objects.filter(brand_host=host).first()
        cached = asdict(_from_reseller(reseller)) if reseller is not None else {}
        try:
            cache.set(key, cached, CACHE_SECONDS)
        except Exception:
            logger.warning("The cache could not be written; %s is looked up again next time.",
                           host)
    return ResellerBrand(**cached) if cached else None


def request_host_name(request) -> str:
    """The request's host name, lower-case and without its port ('' when it is not one the
    portal serves)."""
    try:
        host = request.get_host()
    except Exception:  # DisallowedHost, a broken header: Django answers those itself
        return ""
    domain, _ = split_domain_port(host)
    return domain.lower()


def brand_for_request(request) -> ResellerBrand:
    """The brand a page shows: its tenant's inside a reseller's pages, the host's on a
    reseller's own address, else the portal's. Never raises: an error page may be asking
    because the database or the cache is down."""
    try:
        tenant = getattr(request, "tenant", None)
        if tenant is not None:
            return brand_get(tenant=tenant)
        host_brand = getattr(request, "host_brand", None)
        if host_brand is not None:
            return host_brand
    except Exception:
        logger.exception("The brand of this page could not be read; showing the portal's own.")
    return DEFAULT_BRAND


def brand_admits(*, user: User, brand: ResellerBrand) -> bool:
    """Whether `user` may use the reseller's own address: its members only."""
    return Membership.unscoped.filter(user=user, reseller_id=brand.reseller_id).exclude(
        reseller__status=Reseller.Status.SUSPENDED).exists()


def brand_cache_forget(*hosts: str | None) -> None:
    """Forget what is known of these addresses (a brand's old and new host, once saved)."""
    keys = [_host_key(host) for host in hosts if host]
    if keys:
        cache.delete_many(keys)


# -- the logo's bytes ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogoFile:
    data: bytes
    content_type: str
    width: int
    height: int
    hash: str

    def png(self) -> tuple[bytes, str]:
        """(bytes, content type) in PNG or JPEG, which every mail reader and PDF renderer
        shows (a WebP logo is drawn again as PNG)."""
        return logo_as_png(self.data, self.content_type)


def brand_logo_get(*, tenant: Reseller) -> LogoFile | None:
    """The reseller's logo as stored (checked and drawn again when uploaded), or None."""
    return brand_logo_of(brand_get(tenant=tenant))


def brand_logo_of(brand: ResellerBrand) -> LogoFile | None:
    """The logo of a brand already read (an email's, a document's, a file's), or None."""
    if brand.reseller_id is None:
        return None
    row = (BrandLogo.unscoped.filter(reseller_id=brand.reseller_id)
           .values("data", "content_type", "hash").first())
    if row is None or not row["data"]:
        return None
    return LogoFile(data=bytes(row["data"]), content_type=row["content_type"],
                    width=brand.logo_width or 0, height=brand.logo_height or 0,
                    hash=row["hash"])


def address_on(request, host: str) -> str:
    """`scheme://host[:port]` with the scheme and the port the browser used for `request` (the
    port of its Host header: behind a proxy the server's own port is not the browser's)."""
    port = split_domain_port(request.get_host())[1]
    return f"{request.scheme}://{host}{f':{port}' if port else ''}"


def main_address(request) -> str:
    """The portal's main address, where every member signs in: PORTAL_PUBLIC_URL, or else the
    first host name the portal serves, as the browser reached this one."""
    if settings.PORTAL_PUBLIC_URL:
        return settings.PORTAL_PUBLIC_URL
    for host in settings.ALLOWED_HOSTS:
        if host and host != "*" and not host.startswith("."):
            return address_on(request, host)
    return ""

"""The category lists of the provider, fetched on demand and kept in the Category mirror.

The editor offers the mirrored categories of the listing's country; when a country has none yet,
the page offers to fetch them. One fetch reads the list of every source for that country (six
calls) and mirrors it; a category the provider no longer lists is marked removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from accounts.credentials import CredentialError
from accounts.models import Business, Reseller
from accounts.provider_access import provider_client, provider_key_rejected
from listings.editor.schema import CATEGORY_SOURCES, COUNTRIES
from listings.models import Category
from portal.mirror import mark_removed, upsert
from portal.outbound import UnsafeURL
from provider import AuthError, ProviderError


@dataclass
class CategoryFetch:
    counts: dict[str, int] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


def categories_fetch(*, tenant: Reseller, business: Business, country_code: str,
                     sources: tuple[str, ...] = tuple(CATEGORY_SOURCES)) -> CategoryFetch:
    """Read each source's category list for `country_code` and mirror it."""
    country_code = country_code.upper()
    if country_code not in COUNTRIES:
        raise ValueError(f"The provider has no category list for {country_code!r}.")
    result = CategoryFetch()
    try:
        client = provider_client(tenant=tenant)
    except (CredentialError, UnsafeURL) as exc:
        result.errors["*"] = str(exc)
        return result
    with client:
        for source in sources:
            seen_at = timezone.now()
            try:
                entries = client.category_list(business.remote_id, source_name=source,
                                               country_code=country_code)
            except ProviderError as exc:
                if isinstance(exc, AuthError):
                    provider_key_rejected(tenant=tenant, code=exc.code)
                result.errors[source] = exc.message or str(exc)
                continue
            rows = [Category(reseller=tenant, source=source, country_code=country_code,
                             remote_id=entry.id, name=entry.name or entry.id,
                             primary=entry.primary, raw=dict(entry.raw), last_seen_at=seen_at,
                             removed_at=None)
                    for entry in entries if entry.id]
            upsert(Category, rows, unique_fields=["reseller", "source", "country_code",
                                                  "remote_id"],
                   update_fields=["name", "primary"])
            mark_removed(Category.objects.filter(reseller=tenant, source=source,
                                                 country_code=country_code), seen_at=seen_at)
            result.counts[source] = len(rows)
    return result

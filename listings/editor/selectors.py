"""Reads of the listing editor."""

from __future__ import annotations

from django.db.models import F, OuterRef, QuerySet, Subquery

from accounts.models import Business, Reseller
from listings.models import Category, ListingVersion
from outbox.models import OutboxEntry


def listing_version_list(*, tenant: Reseller, business: Business) -> QuerySet[ListingVersion]:
    return (ListingVersion.objects.filter(reseller=tenant, business=business)
            .select_related("outbox_entry", "created_by").order_by("-number"))


def listing_version_history(*, tenant: Reseller,
                            business: Business) -> QuerySet[ListingVersion]:
    """The versions as the editor's history lists them, each with the bulk changes it came
    from (`bulk_items`) or took back (`bulk_rollback_items`), read in one query each."""
    return listing_version_list(tenant=tenant, business=business).prefetch_related(
        "bulk_items", "bulk_rollback_items")


def listing_version_get(*, tenant: Reseller, business: Business, number: int) -> ListingVersion:
    """The version, or ListingVersion.DoesNotExist (the view turns it into a 404)."""
    return listing_version_list(tenant=tenant, business=business).get(number=number)


def listing_version_latest(*, tenant: Reseller, business: Business) -> ListingVersion | None:
    return listing_version_list(tenant=tenant, business=business).first()


def listing_version_last_accepted(*, tenant: Reseller,
                                  business: Business) -> ListingVersion | None:
    """The version the provider accepted last: the listing is "fixed" once there is one."""
    return (listing_version_list(tenant=tenant, business=business)
            .filter(accepted_at__isnull=False).first())


def listing_version_open(*, tenant: Reseller, business: Business) -> ListingVersion | None:
    """A version still on its way to the provider (pending or being sent)."""
    return (listing_version_list(tenant=tenant, business=business)
            .filter(accepted_at__isnull=True,
                    outbox_entry__state__in=OutboxEntry.OPEN_STATES).first())


def listing_document_from_business(business: Business) -> dict:
    """A first listing from what the child list told us: name, phone and address."""
    address = {key: value for key, value in (
        ("address1", business.address1), ("address2", business.address2),
        ("subLocality", business.sub_locality), ("city", business.city),
        ("state", business.state), ("zip", business.zip),
        ("countryCode", business.country_code.upper()),
    ) if value}
    return {"businessInfo": {"name": business.name, "phone": business.phone,
                             "location": address}}


def category_options(*, tenant: Reseller, country_code: str) -> dict[str, list[tuple[str, str]]]:
    """The mirrored category list of each source for one country: source -> (value, name).

    The value is what the listing carries: the dotted path (the category id) for the maps
    source, the name for the others."""
    options: dict[str, list[tuple[str, str]]] = {}
    rows = (Category.objects.filter(reseller=tenant, country_code=country_code.upper(),
                                    removed_at__isnull=True)
            .order_by("source", "name").values_list("source", "remote_id", "name"))
    for source, remote_id, name in rows:
        value = remote_id if source == "MAPS" else name
        options.setdefault(source, []).append((value, name))
    return options


def listing_versions_last_accepted(*, tenant: Reseller,
                                   business_ids: list[int]) -> dict[int, ListingVersion]:
    """`listing_version_last_accepted` of many businesses in one query (a bulk change's dry
    run reads thousands): business id -> its last accepted version, for those that have one."""
    last = (ListingVersion.objects.filter(reseller=tenant, business_id=OuterRef("business_id"),
                                          accepted_at__isnull=False)
            .order_by("-number").values("number")[:1])
    versions = (ListingVersion.objects
                .filter(reseller=tenant, business_id__in=business_ids, accepted_at__isnull=False)
                .annotate(last_number=Subquery(last)).filter(number=F("last_number"))
                .only("business_id", "number", "document"))
    return {version.business_id: version for version in versions}

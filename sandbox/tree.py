"""The partner's business tree: finding a business within one key's reach, and subtrees."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from sandbox.errors import ApiError, unknown_business
from sandbox.models import Business, BusinessAncestor, BusinessType, PartnerAccount

NOT_A_LOCATION = (400, 1043, "Business should be either SMB or Enterprise sub account")


def find_business(partner: PartnerAccount, number: int, *, unknown_status: int = 404) -> Business:
    """The business with this number in the partner's tree; any other number is unknown (1011,
    under ``unknown_status``: the provider's status for it differs between operations)."""
    business = Business.objects.filter(partner=partner, number=number).first()
    if business is None:
        raise unknown_business(unknown_status)
    return business


def find_location(partner: PartnerAccount, number: int, *, unknown_status: int = 404) -> Business:
    """A location (type Business) of the partner; a reseller or enterprise answers 1043."""
    business = find_business(partner, number, unknown_status=unknown_status)
    if not business.is_location:
        raise ApiError(*NOT_A_LOCATION)
    return business


def subtree_ids(business: Business) -> QuerySet:
    """Ids of the business and everything below it, as a subquery."""
    return BusinessAncestor.objects.filter(ancestor=business).values("descendant_id")


def subtree_locations(business: Business) -> QuerySet[Business]:
    return Business.objects.filter(pk__in=subtree_ids(business), type=BusinessType.BUSINESS)


def locations_by_number(business: Business, numbers: Iterable[int]) -> list[Business]:
    """The locations under ``business`` with these numbers; any other number is unknown (1011)."""
    wanted = list(dict.fromkeys(numbers))
    found = {
        location.number: location
        for location in subtree_locations(business).filter(number__in=wanted)
    }
    for number in wanted:
        if number not in found:
            raise unknown_business()
    return [found[number] for number in wanted]


def ancestry_rows(
    business: Business, parent_rows: list[BusinessAncestor]
) -> list[BusinessAncestor]:
    """Closure rows of ``business`` given its parent's rows (empty for a root)."""
    rows = [
        BusinessAncestor(
            partner_id=business.partner_id,
            ancestor_id=row.ancestor_id,
            descendant_id=business.pk,
            depth=row.depth + 1,
        )
        for row in parent_rows
    ]
    rows.append(
        BusinessAncestor(
            partner_id=business.partner_id,
            ancestor_id=business.pk,
            descendant_id=business.pk,
            depth=0,
        )
    )
    return rows


def rebuild_ancestry(business: Business) -> None:
    """Recompute the closure rows of a business and its subtree after it was added or moved."""
    subtree = [business]
    index = 0
    while index < len(subtree):
        subtree.extend(Business.objects.filter(parent=subtree[index]))
        index += 1
    BusinessAncestor.objects.filter(descendant__in=subtree).delete()
    rows_by_id: dict[int, list[BusinessAncestor]] = {}
    parent_rows = (
        list(BusinessAncestor.objects.filter(descendant_id=business.parent_id))
        if business.parent_id
        else []
    )
    rows_by_id[business.pk] = ancestry_rows(business, parent_rows)
    for node in subtree[1:]:
        rows_by_id[node.pk] = ancestry_rows(node, rows_by_id[node.parent_id])
    BusinessAncestor.objects.bulk_create([row for rows in rows_by_id.values() for row in rows])

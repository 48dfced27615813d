"""Writing the provider's child-business lists into `Business` rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from accounts.models import Business, Reseller
from portal.mirror import mark_removed, upsert
from provider.types import ChildBusiness

BUSINESS_FIELDS = ["parent", "tree_path", "depth", "name", "alias", "type", "status", "address1",
                   "address2", "sub_locality", "city", "state", "zip", "country_code",
                   "country_name", "phone", "child_count", "created_on", "created_by"]


@dataclass(frozen=True)
class TreeNode:
    """Where a business sits in the tree: what its children need to know of it."""

    pk: int | None
    remote_id: int
    tree_path: str
    depth: int


def parse_created_on(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return datetime.strptime(text.strip(), "%b %d, %Y").date()
    except ValueError:
        return None


def has_children(child: ChildBusiness) -> bool:
    if child.type == Business.Type.BUSINESS:
        return False
    return child.child_count is None or child.child_count > 0


def business_children_mirror(*, tenant: Reseller, parent: TreeNode,
                             children: list[ChildBusiness], seen_at: datetime) -> list[TreeNode]:
    """Upsert one page of children of `parent`; return the nodes that have children of their own."""
    rows, container_ids = [], []
    for child in children:
        if child.id is None:
            continue
        address = child.address or {}
        rows.append(Business(
            reseller=tenant, remote_id=child.id, parent_id=parent.pk,
            tree_path=f"{parent.tree_path}{child.id}/", depth=parent.depth + 1,
            name=(child.name or "")[:1000], alias=child.alias or "",
            type=child.type or Business.Type.BUSINESS, status=child.status or "",
            address1=address.get("address1") or "", address2=address.get("address2") or "",
            sub_locality=address.get("subLocality") or "", city=address.get("city") or "",
            state=address.get("state") or "", zip=str(address.get("zip") or ""),
            country_code=(address.get("countryCode") or "")[:2],
            country_name=address.get("countryName") or "", phone=child.phone or "",
            child_count=child.child_count, created_on=parse_created_on(child.created_on),
            created_by=child.created_by or "", raw=dict(child.raw), last_seen_at=seen_at,
            removed_at=None,
        ))
        if has_children(child):
            container_ids.append(child.id)
    upsert(Business, rows, unique_fields=["reseller", "remote_id"], update_fields=BUSINESS_FIELDS)
    if not container_ids:
        return []
    found = Business.objects.filter(reseller=tenant, remote_id__in=container_ids)
    return [TreeNode(pk=pk, remote_id=remote_id, tree_path=tree_path, depth=depth)
            for pk, remote_id, tree_path, depth
            in found.values_list("pk", "remote_id", "tree_path", "depth")]


def business_tree_mark_removed(*, tenant: Reseller, walk_started_at: datetime) -> int:
    """After a complete walk, every business it did not see is gone from the provider."""
    return mark_removed(Business.objects.filter(reseller=tenant), seen_at=walk_started_at)

"""Reads of the accounts app."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.http import Http404

from accounts.filtersets import BusinessFilterSet
from accounts.models import (
    ApiToken,
    Business,
    Membership,
    Reseller,
    User,
)


def membership_for_entry(*, user: User, slug: str) -> Membership:
    """The user's membership of the reseller named in the URL, or 404.

    This runs before any scope exists (it decides the scope), so it reads across tenants on
    purpose; a non-member gets the same 404 as a reseller that does not exist.
    """
    if not user.is_authenticated:
        raise Http404("No such reseller.")
    membership = (
        Membership.unscoped.select_related("reseller", "limited_to")
        .filter(user=user, reseller__slug=slug)
        .exclude(reseller__status=Reseller.Status.SUSPENDED)
        .first()
    )
    if membership is None:
        raise Http404("No such reseller.")
    return membership


def membership_list_for_user(*, user: User) -> QuerySet[Membership]:
    """Every reseller the user may switch to (the switcher crosses tenants by design)."""
    return (
        Membership.unscoped.select_related("reseller")
        .filter(user=user)
        .exclude(reseller__status=Reseller.Status.SUSPENDED)
        .order_by("reseller__name")
    )


def business_list(*, tenant: Reseller, membership: Membership | None = None) -> QuerySet[Business]:
    """Businesses of the tenant that the member may see (their subtree when limited)."""
    return business_list_visible(tenant=tenant, membership=membership).filter(
        removed_at__isnull=True)


def business_list_visible(*, tenant: Reseller,
                          membership: Membership | None = None) -> QuerySet[Business]:
    """Like `business_list`, removed businesses included: the base of the filtered list, whose
    `removed` filter decides whether they show."""
    queryset = Business.objects.filter(reseller=tenant)
    if membership is not None and membership.limited_to_id is not None:
        queryset = queryset.filter(membership.limited_to.subtree_q())
    return queryset


def business_get(*, tenant: Reseller, membership: Membership | None, remote_id: int) -> Business:
    business = business_list(tenant=tenant, membership=membership).filter(remote_id=remote_id)
    found = business.first()
    if found is None:
        raise Http404("No such business.")
    return found


# -- the businesses list, its export and its tree ----------------------------------------------


def business_filter_choices(*, tenant: Reseller,
                            membership: Membership | None) -> tuple[list[str], list[str]]:
    """The business types and countries present among what the member may see (one query)."""
    if membership is None or membership.limited_to_id is None:
        return _distinct_types_and_countries(tenant=tenant)
    pairs = (business_list(tenant=tenant, membership=membership).order_by()
             .values_list("type", "country_code").distinct())
    types, countries = set(), set()
    for type_, country in pairs:
        types.add(type_)
        if country:
            countries.add(country)
    return sorted(t for t in types if t), sorted(countries)


def _distinct_types_and_countries(*, tenant: Reseller) -> tuple[list[str], list[str]]:
    """The tenant's current business types and countries by a skip scan: each step asks the
    (reseller, type, ...) or (reseller, country_code, ...) index for the next value, so the
    cost is a few index probes per distinct value rather than a read of every business (a
    DISTINCT over 50,000 businesses took ~30 ms on every list page).

    Raw SQL because the ORM cannot write a recursive query; the tenant is explicit in it."""
    table = connection.ops.quote_name(Business._meta.db_table)
    current = "reseller_id = %s AND removed_at IS NULL"
    # The CTE names and columns are fixed here; only the tenant's id is a parameter.
    sql = f"""
        WITH RECURSIVE
          types(value) AS (
            SELECT MIN(type) FROM {table} WHERE {current} AND type <> ''
            UNION ALL
            SELECT (SELECT MIN(type) FROM {table} WHERE {current} AND type > types.value)
            FROM types WHERE types.value IS NOT NULL
          ),
          countries(value) AS (
            SELECT MIN(country_code) FROM {table} WHERE {current} AND country_code <> ''
            UNION ALL
            SELECT (SELECT MIN(country_code) FROM {table}
                    WHERE {current} AND country_code > countries.value)
            FROM countries WHERE countries.value IS NOT NULL
          )
        SELECT 'type', value FROM types WHERE value IS NOT NULL
        UNION ALL
        SELECT 'country', value FROM countries WHERE value IS NOT NULL
    """  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, [tenant.pk] * 4)
        rows = cursor.fetchall()
    types = sorted(value for kind, value in rows if kind == "type")
    countries = sorted(value for kind, value in rows if kind == "country")
    return types, countries


def business_filterset(*, tenant: Reseller, membership: Membership | None,
                       params: Mapping | None, with_choices: bool = True) -> BusinessFilterSet:
    """The FilterSet of the businesses list over what the member may see; its `.qs` is the
    filtered, sorted list with each business's status report joined in (no N+1)."""
    base = (business_list_visible(tenant=tenant, membership=membership)
            .select_related("status_report"))
    types = countries = None
    if with_choices:
        types, countries = business_filter_choices(tenant=tenant, membership=membership)
    # Always bound, even to no parameters: the defaults (hide removed, sort by name) apply then.
    return BusinessFilterSet(params if params is not None else {}, queryset=base,
                             type_choices=types, country_choices=countries)


def business_list_filtered(*, tenant: Reseller, membership: Membership | None,
                           params: Mapping | None) -> QuerySet[Business]:
    """The filtered list; parameters that do not validate are ignored (the form shows why)."""
    return business_filterset(tenant=tenant, membership=membership, params=params,
                              with_choices=False).qs


@dataclass
class TreeNode:
    """A reseller, sub-reseller, enterprise (or custom container) with its location counts."""

    pk: int | None
    remote_id: int | None
    name: str
    type: str
    status: str = ""
    depth: int = 0
    direct_locations: int = 0
    locations: int = 0
    needs_action: int = 0
    children: list[TreeNode] = field(default_factory=list)

    @property
    def type_label(self) -> str:
        if self.pk is None:
            return "Your account"
        if self.type == Business.Type.RESELLER:
            return "Sub-reseller"  # every reseller row is under the tenant's own account
        return dict(Business.Type.choices).get(self.type, self.type)


def business_tree(*, tenant: Reseller, membership: Membership | None) -> TreeNode:
    """The containers of the member's part of the tree with the locations under each.

    Two queries whatever the size: the containers, and the locations counted per parent; the
    totals roll up in Python along the containers (far fewer than locations). Locations
    themselves are not listed: each node links to the filtered list.
    """
    visible = business_list(tenant=tenant, membership=membership)
    limited_to = membership.limited_to if membership is not None else None
    root = TreeNode(pk=None, remote_id=None, name=tenant.name, type=Business.Type.RESELLER,
                    depth=-1)
    nodes: dict[int, TreeNode] = {}
    containers = (visible.exclude(type=Business.Type.BUSINESS).order_by("depth", "name")
                  .values_list("pk", "remote_id", "name", "type", "status", "depth",
                               "parent_id"))
    parent_of: dict[int, int | None] = {}
    for pk, remote_id, name, type_, status, depth, parent_id in containers:
        nodes[pk] = TreeNode(pk=pk, remote_id=remote_id, name=name, type=type_, status=status,
                             depth=depth)
        parent_of[pk] = parent_id
    counts = (visible.filter(type=Business.Type.BUSINESS).order_by().values("parent_id")
              .annotate(n=Count("pk"), needs=Count("pk", filter=Q(needs_action=True))))
    for row in counts:
        node = nodes.get(row["parent_id"], root)
        node.direct_locations += row["n"]
        node.locations += row["n"]
        node.needs_action += row["needs"]
    # Deepest first, so that each node's total is complete before it is added to its parent.
    for pk in sorted(nodes, key=lambda pk: -nodes[pk].depth):
        node = nodes[pk]
        parent = nodes.get(parent_of[pk], root)
        parent.locations += node.locations
        parent.needs_action += node.needs_action
        parent.children.append(node)
    order = {Business.Type.RESELLER: 0, Business.Type.ENTERPRISE_LOCATION: 1,
             Business.Type.ENTERPRISE_PRODUCT: 2}
    for node in [root, *nodes.values()]:
        node.children.sort(key=lambda child: (order.get(child.type, 3), child.name.lower()))
    if limited_to is not None and limited_to.pk in nodes:
        # A member limited to one container: their container is the root.
        return nodes[limited_to.pk]
    return root


def business_name_get(*, tenant: Reseller, membership: Membership | None,
                      remote_id: int) -> str:
    """The name of a business the member may see, or "" (for labels such as "under X")."""
    return (business_list_visible(tenant=tenant, membership=membership)
            .filter(remote_id=remote_id).values_list("name", flat=True).first() or "")


def business_rows_in_order(*, queryset: QuerySet[Business], ids) -> list[Business]:
    """The rows of `queryset` whose ids are `ids`, in that order: the second step of paging
    by ids first (a deep page then skips narrow index entries, not joined rows)."""
    ids = list(ids)
    rows = {business.pk: business
            for business in queryset.order_by().filter(pk__in=ids)} if ids else {}
    return [rows[pk] for pk in ids if pk in rows]


def business_export_rows(*, queryset: QuerySet[Business]):
    """The columns of the CSV export, fetched in chunks (no model instances)."""
    return queryset.values_list(
        "remote_id", "name", "alias", "type", "status", "address1", "address2", "city",
        "state", "zip", "country_code", "phone", "parent__remote_id",
        "status_report__location_status", "status_report__total_sites",
        "status_report__synced_count", "status_report__submitted_count",
        "status_report__need_updates_count", "status_report__opted_out_count",
        "status_report__not_connected_count", "status_report__needs_action",
        "status_report__last_seen_at", "removed_at",
    ).iterator(chunk_size=2000)


# -- one business ------------------------------------------------------------------------------


def business_detail_get(*, tenant: Reseller, membership: Membership | None,
                        remote_id: int) -> Business:
    """A business the member may see, removed ones included (their pages say so), or 404.

    When its parent is outside the member's subtree the parent is hidden from the page."""
    business = (business_list_visible(tenant=tenant, membership=membership)
                .select_related("parent", "status_report").filter(remote_id=remote_id).first())
    if business is None:
        raise Http404("No such business.")
    limited_to = membership.limited_to if membership is not None else None
    if business.parent is not None and limited_to is not None and not (
            business.parent.tree_path.startswith(limited_to.tree_path)):
        # In memory only: parent_id is untouched, so a save would not change it.
        Business._meta.get_field("parent").set_cached_value(business, None)
    return business


def business_location_count(*, tenant: Reseller, membership: Membership | None,
                            business: Business) -> int:
    """How many current locations under the business the member may see (the subtree index
    answers it)."""
    return (business_list(tenant=tenant, membership=membership)
            .filter(business.subtree_q(), type=Business.Type.BUSINESS)
            .exclude(pk=business.pk).count())


def own_token_list(*, membership: Membership) -> QuerySet[ApiToken]:
    """The member's tokens for this reseller, newest first (never anyone else's)."""
    return ApiToken.objects.filter(reseller=membership.reseller,
                                   user=membership.user).order_by("-created_at", "-id")


def own_token_get(*, membership: Membership, pk: int) -> ApiToken:
    token = own_token_list(membership=membership).filter(pk=pk).first()
    if token is None:
        raise Http404("No such token.")
    return token

"""The reseller dashboard: a few aggregate queries over what the member may see, and its charts.

Every figure is computed from `business_list` (so a member limited to a subtree sees the totals
of their subtree only) with aggregates whose number does not depend on the number of rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, QuerySet
from django.utils.safestring import SafeString

from accounts.charts import status_segments
from accounts.models import Business, Membership, Reseller, SyncRun
from accounts.selectors import business_list
from accounts.triage import EXPLANATIONS, TRIAGE_PARAMS, listing_work, triage_q
from listings.charts import health_segments
from listings.models import ListingStatusReport
from listings.selectors import listing_health, listing_health_of_account
from portal.charts import PALETTE, Segment, bar_chart, donut
from provider.types import star_average
from reviews_app.models import ReviewCount
from sync.selectors import sync_run_list

NEEDS_ACTION_SHOWN = 10
SYNC_RUNS_SHOWN = 5


@dataclass
class Reviews:
    review_count: int
    average_rating: Decimal | None
    count_by_rating: dict[str, int] = field(default_factory=dict)
    last_seen_at: object = None

    @property
    def rated_count(self) -> int:
        return star_average(self.count_by_rating)[0]

    @property
    def unrated_count(self) -> int:
        """Reviews without a star rating: counted, but in no bar and not in the average."""
        return max(0, self.review_count - self.rated_count)


@dataclass
class Dashboard:
    location_count: int
    container_count: int
    locations_by_status: dict[str, int]
    health: dict[str, int]
    reviews: Reviews | None
    sync_runs: list[SyncRun]
    needs_action: list[Business]
    # Locations needing action by the work they ask, keyed by the list's `triage` parameter.
    work: dict[str, int] = field(default_factory=dict)

    @property
    def work_legend(self) -> list[tuple[str, str, int, str]]:
        """(triage parameter, label, count, explanation), most urgent first."""
        return [(param, tier.label, self.work.get(param, 0), EXPLANATIONS[tier])
                for param, tier in TRIAGE_PARAMS.items()]

    @property
    def business_count(self) -> int:
        return self.location_count + self.container_count

    @property
    def synced_percent(self) -> int | None:
        total = self.health.get("total_sites") or 0
        return round(100 * self.health.get("synced", 0) / total) if total else None

    @property
    def status_legend(self) -> list[tuple[str, str, int, str]]:
        """(status value, label, count, colour) for the legend, whose entries link to the
        filtered list."""
        values = {label: value for value, label in Business.Status.choices}
        return [(values.get(s.label, ""), s.label, int(s.value), s.color)
                for s in status_segments(self.locations_by_status)]

    @property
    def health_legend(self) -> list[tuple[Segment, int]]:
        """Each site state with its share of all sites, in percent."""
        total = sum(s.value for s in health_segments(self.health)) or 1
        return [(s, round(100 * s.value / total)) for s in health_segments(self.health)]

    @property
    def status_chart(self) -> SafeString:
        return donut(status_segments(self.locations_by_status), title="Locations by status",
                     center_text=str(self.location_count))

    @property
    def health_chart(self) -> SafeString:
        percent = self.synced_percent
        return donut(health_segments(self.health), title="Listing sites of all locations by state",
                     center_text=f"{percent}%" if percent is not None else "–")

    @property
    def rating_chart(self) -> SafeString | None:
        if self.reviews is None or not self.reviews.count_by_rating:
            return None
        segments = [Segment(f"{rating} ★", self.reviews.count_by_rating.get(str(rating), 0),
                            PALETTE["ok"] if rating >= 4 else
                            PALETTE["warn"] if rating == 3 else PALETTE["bad"])
                    for rating in (5, 4, 3, 2, 1)]
        return bar_chart(segments, title="Reviews by rating", label_width=60)


def _reviews(*, tenant: Reseller, membership: Membership | None,
             visible: QuerySet[Business]) -> Reviews | None:
    """The account's review counts. A member limited to a subtree gets their subtree root's
    counts when the provider gave some, else the sum of their locations' counts; never the
    whole account's."""
    limited_to = membership.limited_to if membership is not None else None
    remote_id = limited_to.remote_id if limited_to is not None else tenant.account_number
    live = ReviewCount.objects.filter(reseller=tenant, removed_at__isnull=True)
    own = _reviews_summed(live.filter(remote_id=remote_id))
    if own is not None or limited_to is None:
        return own
    return _reviews_summed(live.filter(
        remote_id__in=visible.filter(type=Business.Type.BUSINESS).values("remote_id")))


def _reviews_summed(rows: QuerySet[ReviewCount]) -> Reviews | None:
    """The counts of one business or many added up. The average is over the rated reviews: a
    review without a rating is not a zero-star one (the provider's own average counts it so)."""
    total, by_rating, last_seen, provider_average, row_count = 0, {}, None, None, 0
    for count, ratings, seen_at, average in rows.values_list(
            "review_count", "count_by_rating", "last_seen_at", "average_rating"):
        total += count
        provider_average = average
        row_count += 1
        for rating, n in (ratings or {}).items():
            by_rating[str(rating)] = by_rating.get(str(rating), 0) + int(n)
        last_seen = seen_at if last_seen is None or seen_at > last_seen else last_seen
    if last_seen is None:
        return None
    rated, average = star_average(by_rating)
    if not rated and row_count == 1:
        average = provider_average  # without a breakdown, one business's average is the provider's
    return Reviews(review_count=total, average_rating=average, count_by_rating=by_rating,
                   last_seen_at=last_seen)


def _street_and_city(business: Business) -> str:
    """Its address without the country, to tell apart two locations of the same name."""
    lines = business.address_lines
    if lines and lines[-1] == (business.country_name or business.country_code):
        lines = lines[:-1]
    return ", ".join(lines)


def _work(*, tenant: Reseller, visible: QuerySet[Business], limited: bool) -> dict[str, int]:
    """Locations needing action counted per tier, in one aggregate over the status reports
    (of the account alone, as `listing_health_of_account` sums them, unless limited)."""
    reports = ListingStatusReport.objects.filter(removed_at__isnull=True, needs_action=True)
    reports = (reports.filter(business__in=visible.filter(type=Business.Type.BUSINESS))
               if limited else reports.filter(reseller=tenant))
    totals = reports.aggregate(**{param: Count("business", filter=triage_q(tier))
                                  for param, tier in TRIAGE_PARAMS.items()})
    return {param: value or 0 for param, value in totals.items()}


def _needs_action_first(*, tenant: Reseller, visible: QuerySet[Business],
                        work: dict[str, int]) -> list[Business]:
    """The locations asking the most work: a location never published before one with 1 of 22
    sites to update, and within a tier the most sites late against their directory's usual
    delay (history.ageing counts them on the report), then the most sites to update first.

    A query per tier, most urgent first, and only while rows are missing (usually the first
    tier fills the list): each walks the needs-action index by sites to update and stops at
    the rows it needs, where one query ranking every location by tier would sort them all
    (20-30 ms at 50,000 locations, against 2 ms a tier).
    """
    base = (
        # The report's own reseller (the same tenant) lets its needs-action index lead.
        visible.filter(type=Business.Type.BUSINESS, status_report__needs_action=True,
                       status_report__reseller=tenant)
        .select_related("status_report").defer("raw", "status_report__raw")
        .order_by("-status_report__late_sites_count", "-status_report__need_updates_count",
                  "name", "pk"))
    rows: list[Business] = []
    for param, tier in TRIAGE_PARAMS.items():  # most urgent first
        wanted = NEEDS_ACTION_SHOWN - len(rows)
        if wanted <= 0:
            break
        if work.get(param):
            rows += base.filter(triage_q(tier, prefix="status_report__"))[:wanted]
    return rows


def dashboard_summary(*, tenant: Reseller, membership: Membership | None) -> Dashboard:
    visible = business_list(tenant=tenant, membership=membership)
    limited = membership is not None and membership.limited_to_id is not None
    by_status: dict[str, int] = {}
    containers = 0
    for type_, status, count in (visible.order_by().values_list("type", "status")
                                 .annotate(n=Count("pk"))):
        if type_ == Business.Type.BUSINESS:
            by_status[status] = by_status.get(status, 0) + count
        else:
            containers += count
    work = _work(tenant=tenant, visible=visible, limited=limited)
    needs_action = _needs_action_first(tenant=tenant, visible=visible, work=work)
    for business in needs_action:
        business.work = listing_work(business.status_report)
        business.place = _street_and_city(business)
    return Dashboard(
        location_count=sum(by_status.values()),
        container_count=containers,
        locations_by_status=by_status,
        health=(listing_health(locations=visible) if limited
                else listing_health_of_account(tenant=tenant)),
        reviews=_reviews(tenant=tenant, membership=membership, visible=visible),
        sync_runs=list(sync_run_list(tenant=tenant, membership=membership)[:SYNC_RUNS_SHOWN]),
        needs_action=needs_action,
        work=work,
    )

"""The report: a client's results over a period as plain figures, the one source of the page,
the PDF and the API.

A client is a business subtree (a sub-reseller, an enterprise or a location) or the whole
account. Nothing here is computed afresh when another app already computes it: the figures
of the period come from the history's days (`history.selectors`: the same rows and the same
`Figure`s as the trends pages and the history API), the listing health now and the locations
needing action from the same reads as the dashboard (`listings.selectors.listing_health`,
`accounts.triage`), the late sites from `history.ageing`, and the agency's work from the rows
the listing editor, the bulk changes and the media uploads leave behind. So a report's figure
equals the one the portal shows for the same subtree and period.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.formats import date_format

from accounts.models import Business, Membership, Reseller
from accounts.selectors import business_get, business_list
from accounts.triage import EXPLANATIONS, TRIAGE_PARAMS, listing_work, triage_q, triage_score
from bulk.forms import part_labels
from bulk.models import BulkChange, BulkChangeItem
from history.ageing import DEFAULT_SORT, SORTS, LateSites, late_site_rows
from history.delays import ACTION_REQUIRED, IN_PROGRESS, SUBMITTED, directory_delays
from history.models import DayFigures
from history.selectors import (
    FIGURES,
    Change,
    Subject,
    history_days,
    history_subject,
    period_start,
    series_of,
)
from listings.models import ListingStatusReport, ListingVersion
from listings.selectors import listing_health, listing_health_of_account
from outbox.models import OutboxEntry
from reviews_app.models import CompetitiveRanking

# A year and a day: a leap year's whole year, or a year from any day to the same day.
MAX_PERIOD_DAYS = 366
NEEDS_ACTION_SHOWN = 8
LATE_SHOWN = 8
CHANGES_SHOWN = 8
DAY_FORMAT = "M j, Y"  # as the portal's pages write a day (portal_tags.day)
# The history's figures (history.selectors.FIGURES) each part of the report follows.
HEALTH_FIGURES = ("synced_percent", "sites_needing_action", "locations_needing_action")
REVIEW_FIGURES = ("average_rating", "reviews")


def day_text(value: date | datetime | None) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        value = timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    return date_format(value, DAY_FORMAT)


# -- the period --------------------------------------------------------------------------------


def period_check(*, date_from: date | None, date_to: date | None,
                 today: date | None = None) -> tuple[date, date]:
    """The period as given, or ValidationError naming the field at fault (`from` or `to`)."""
    today = today or timezone.localdate()
    if date_from is None:
        raise ValidationError({"from": "Give the first day of the period (YYYY-MM-DD)."})
    if date_to is None:
        raise ValidationError({"to": "Give the last day of the period (YYYY-MM-DD)."})
    if date_from > date_to:
        raise ValidationError({"from": f"The first day ({date_from}) is after the last "
                                       f"({date_to})."})
    if date_to > today:
        raise ValidationError({"to": f"The last day ({date_to}) is after today ({today}): a "
                                     "report tells what happened."})
    if (date_to - date_from).days + 1 > MAX_PERIOD_DAYS:
        raise ValidationError({"from": f"A report covers at most {MAX_PERIOD_DAYS} days; this "
                                       f"period has {(date_to - date_from).days + 1}."})
    return date_from, date_to


def _month_before(day: date) -> tuple[date, date]:
    end = day.replace(day=1) - timedelta(days=1)
    return end.replace(day=1), end


def _quarter_start(day: date) -> date:
    return day.replace(month=3 * ((day.month - 1) // 3) + 1, day=1)


# The page's presets, in its order: (value, label).
PRESETS = [("last_month", "Last month"), ("this_month", "This month"),
           ("last_quarter", "Last quarter"), ("custom", "Custom")]


def preset_period(preset: str, *, today: date | None = None) -> tuple[date, date]:
    """The days of a preset; an unknown one is last month (the default of every entry)."""
    today = today or timezone.localdate()
    if preset == "this_month":
        return today.replace(day=1), today
    if preset == "last_quarter":
        end = _quarter_start(today) - timedelta(days=1)
        return _quarter_start(end), end
    return _month_before(today)


def chart_interval(date_from: date, date_to: date) -> str:
    """Days for a month or two, weeks up to half a year, months beyond."""
    days = (date_to - date_from).days + 1
    return "day" if days <= 62 else "week" if days <= 190 else "month"


def periods_of(date_from: date, date_to: date, interval: str) -> list[date]:
    """The first day of every period from `date_from` to `date_to` (the charts' x axis: a
    period without a recorded day is a gap, not a zero)."""
    periods, period = [], period_start(date_from, interval)
    while period <= date_to:
        periods.append(period)
        if interval == "month":
            period = (period.replace(day=28) + timedelta(days=4)).replace(day=1)
        else:
            period += timedelta(days=7 if interval == "week" else 1)
    return periods


# -- which client ------------------------------------------------------------------------------


def report_business_get(*, tenant: Reseller, membership: Membership | None,
                        number: int) -> Business:
    """The business a report is asked of, among those the member may see. A number that
    names no current business of the account is a ValidationError on `business`; one outside
    a limited member's subtree is a 404 (as every page of a business outside it), and so is
    any other number they give, so that a limited member learns nothing of the rest."""
    try:
        return business_get(tenant=tenant, membership=membership, remote_id=number)
    except Http404:
        if membership is not None and membership.limited_to_id is not None:
            raise
    raise ValidationError({"business": f"No business of this account has the number "
                                       f"{number}."})


# -- the figures -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sites:
    """Listing sites by state, summed over the status reports of the client's locations."""

    total: int = 0
    synced: int = 0
    submitted: int = 0
    need_updates: int = 0
    opted_out: int = 0
    not_connected: int = 0
    reports: int = 0  # locations with a status report
    needs_action: int = 0  # locations needing action

    @property
    def synced_percent(self) -> int | None:
        """As the dashboard says it: the whole percent."""
        return round(100 * self.synced / self.total) if self.total else None

    @property
    def by_status(self) -> list[tuple[str, int]]:
        return [("Synced", self.synced), ("Submitted", self.submitted),
                ("Needing action", self.need_updates), ("Opted out", self.opted_out),
                ("Not connected", self.not_connected)]


@dataclass(frozen=True)
class NeedsAction:
    name: str
    business_number: int
    place: str
    work: str  # the tier, in words
    sites: str  # "3 of 22 sites need action"
    late: str  # "2 sites late"


@dataclass(frozen=True)
class Locations:
    count: int
    by_status: dict[str, int]
    needing_action: int
    work: dict[str, int]  # locations needing action per tier (the `triage` parameter)
    first: list[NeedsAction]  # those asking the most work, most first

    @property
    def work_legend(self) -> list[tuple[str, int, str]]:
        return [(tier.label, self.work.get(param, 0), EXPLANATIONS[tier])
                for param, tier in TRIAGE_PARAMS.items()]


@dataclass(frozen=True)
class Point:
    """One point of the period's series: the last recorded day of its period."""

    period: date
    day: date
    synced_percent: float | None
    average_rating: Decimal | None
    reviews: int | None
    sites_needing_action: int
    locations_needing_action: int


@dataclass(frozen=True)
class Reviews:
    """The review counts of the period's last recorded day (the provider's counts over the
    sync's window), by rating, with the average over the rated reviews only."""

    day: date
    total: int
    by_rating: dict[int, int]  # 5 to 1
    rated: int
    average: Decimal | None

    @property
    def unrated(self) -> int:
        return max(0, self.total - self.rated)


@dataclass(frozen=True)
class LateSite:
    location: str
    business_number: int
    site: str
    status: str
    age: str
    late_by: str
    todo: str


@dataclass(frozen=True)
class Late:
    count: int
    by_status: dict[str, int]
    first: list[LateSite]


@dataclass(frozen=True)
class Competition:
    """The account against its competitors, at the period's last recorded day; the position
    in the mirrored ranking (as of its last sync) when the provider ranks the account."""

    day: date
    average_rating: Decimal | None  # the account's own
    competitor_rows: int | None
    competitor_rating: Decimal | None
    competitor_reviews: int | None
    ranking_rating: Decimal | None
    ranking_reviews: int | None
    positive: int | None
    neutral: int | None
    negative: int | None
    position: int | None = None
    ranked: int | None = None  # the account and its competitors

    @property
    def has_competitors(self) -> bool:
        return bool(self.competitor_rows)

    @property
    def has_ranking(self) -> bool:
        return self.ranking_reviews is not None

    @property
    def positive_percent(self) -> int | None:
        mentions = (self.positive or 0) + (self.neutral or 0) + (self.negative or 0)
        return round(100 * (self.positive or 0) / mentions) if mentions else None


@dataclass(frozen=True)
class Surveys:
    """Completed survey responses of the 30 days up to the period's last recorded day."""

    day: date
    responses: int
    average_score: Decimal | None
    nps: int | None
    promoters: int | None
    passives: int | None
    detractors: int | None


@dataclass(frozen=True)
class Activity:
    at: datetime
    kind: str  # "Listing update", "Bulk change", "Media"
    what: str
    where: str
    state: str


@dataclass(frozen=True)
class Work:
    """What the agency did for the client in the period."""

    listing_versions_sent: int
    listing_versions_accepted: int
    listing_versions_refused: int
    bulk_changes: int
    bulk_locations_changed: int
    media_sent: int
    media_added: int
    latest: list[Activity]


@dataclass
class Report:
    """Everything a report says, as plain figures."""

    reseller_name: str
    subject: Subject
    date_from: date
    date_to: date
    made_at: datetime
    interval: str
    locations: Locations
    sites_now: Sites
    points: list[Point]
    # The period's last recorded day against the last one before the period (history).
    first_day: date | None
    last_day: date | None
    before_day: date | None
    sites_end: Sites | None
    changes: list[Change]
    reviews: Reviews | None
    late: Late
    competition: Competition | None
    surveys: Surveys | None
    work: Work

    @property
    def subject_kind(self) -> str:
        return self.subject.kind

    @property
    def business_number(self) -> int | None:
        return self.subject.business.remote_id if self.subject.business is not None else None

    @property
    def client_name(self) -> str:
        return self.subject.name

    @property
    def client_words(self) -> str:
        """Whose report it is, in words: "the whole account", "Brand and everything under it",
        "the location Shop"."""
        if self.subject.business is None:
            return f"the whole account of {self.reseller_name}"
        if self.subject.business.is_location:
            return f"the location {self.subject.name}"
        return f"{self.subject.name} and everything under it"

    @property
    def period_text(self) -> str:
        return f"{day_text(self.date_from)} to {day_text(self.date_to)}"

    @property
    def has_history(self) -> bool:
        return bool(self.points)

    def change(self, key: str) -> Change:
        return next(change for change in self.changes if change.figure.key == key)

    def series(self, key: str) -> list[tuple[date, float | None]]:
        """A figure of the points (a `Point` attribute) over every period of the report,
        None where nothing was recorded."""
        by_period = {point.period: point for point in self.points}
        values = []
        for period in periods_of(self.date_from, self.date_to, self.interval):
            point = by_period.get(period)
            value = getattr(point, key) if point is not None else None
            values.append((period, float(value) if value is not None else None))
        return values


def _sites(values: dict[str, int]) -> Sites:
    return Sites(total=values.get("total_sites", 0), synced=values.get("synced", 0),
                 submitted=values.get("submitted", 0),
                 need_updates=values.get("need_updates", 0),
                 opted_out=values.get("opted_out", 0),
                 not_connected=values.get("not_connected", 0),
                 reports=values.get("reports", 0), needs_action=values.get("needs_action", 0))


def _sites_of_day(row: DayFigures) -> Sites:
    return Sites(total=row.total_sites, synced=row.synced, submitted=row.submitted,
                 need_updates=row.need_updates, opted_out=row.opted_out,
                 not_connected=row.not_connected, reports=row.reports,
                 needs_action=row.needs_action)


def _place(business: Business) -> str:
    lines = business.address_lines
    if lines and lines[-1] == (business.country_name or business.country_code):
        lines = lines[:-1]
    return ", ".join(lines)


def _locations(*, tenant: Reseller, visible: QuerySet[Business], limited: bool) -> tuple[
        Locations, Sites]:
    """The client's current locations and their listing health now, read as the dashboard
    reads them (`limited`: anything narrower than the whole account)."""
    locations = visible.filter(type=Business.Type.BUSINESS)
    by_status = dict(locations.order_by().values_list("status").annotate(n=Count("pk")))
    health = _sites(listing_health(locations=visible) if limited
                    else listing_health_of_account(tenant=tenant))
    # Locations needing action per tier, counted as the dashboard counts them.
    flagged = ListingStatusReport.objects.filter(removed_at__isnull=True, needs_action=True)
    flagged = (flagged.filter(business__in=locations) if limited
               else flagged.filter(reseller=tenant))
    work = {param: value or 0 for param, value in flagged.aggregate(
        **{param: Count("business", filter=triage_q(tier))
           for param, tier in TRIAGE_PARAMS.items()}).items()}
    # The businesses list's order with `sort=-triage`: most work first.
    first = []
    for business in (locations.filter(status_report__needs_action=True,
                                      status_report__removed_at__isnull=True)
                     .select_related("status_report").defer("raw", "status_report__raw")
                     .annotate(score=triage_score("status_report__"))
                     .order_by("-score", "name", "pk")[:NEEDS_ACTION_SHOWN]):
        work_of = listing_work(business.status_report)
        first.append(NeedsAction(name=business.name, business_number=business.remote_id,
                                 place=_place(business), work=work_of.label,
                                 sites=work_of.sites, late=work_of.late))
    return Locations(count=sum(by_status.values()), by_status=by_status,
                     needing_action=health.needs_action, work=work, first=first), health


def _late(*, tenant: Reseller, membership: Membership | None,
          business: Business | None) -> Late:
    """The sites late now against their directory's usual delay (history.ageing), of the
    client's locations."""
    now = timezone.now()
    delays = directory_delays(tenant=tenant)
    sites = late_site_rows(tenant=tenant, membership=membership, now=now)
    if business is not None:
        sites = sites.filter(business.subtree_q(prefix="business__"))
    by_status = dict(sites.values_list("status").annotate(n=Count("pk")).order_by())
    ordered = LateSites(sites, SORTS[DEFAULT_SORT], {delay.site_id: delay for delay in delays},
                        now)
    first = [LateSite(location=row.business.name, business_number=row.business.remote_id,
                      site=row.site_name, status=row.status, age=row.age_words,
                      late_by=row.late_by_words, todo=row.todo)
             for row in ordered[:LATE_SHOWN]]
    return Late(count=sum(by_status.values()),
                by_status={status: by_status.get(status, 0)
                           for status in (SUBMITTED, IN_PROGRESS, ACTION_REQUIRED)},
                first=first)


def _competition(*, tenant: Reseller, last) -> Competition | None:
    if last is None or not (last.competitors or last.ranking_reviews is not None):
        return None
    position = ranked = None
    if last.ranking_rating is not None:
        ranking = CompetitiveRanking.objects.filter(
            reseller=tenant, remote_id=tenant.account_number, removed_at__isnull=True).first()
        if ranking is not None and ranking.rating is not None:
            others = [c for c in ranking.competitors or [] if isinstance(c, dict)]
            better = 0
            for other in others:
                try:
                    if Decimal(str(other.get("rating"))) > ranking.rating:
                        better += 1
                except (ArithmeticError, ValueError, TypeError):
                    continue
            position, ranked = better + 1, len(others) + 1
    return Competition(
        day=last.day, average_rating=last.average_rating, competitor_rows=last.competitors,
        competitor_rating=last.competitor_rating, competitor_reviews=last.competitor_reviews,
        ranking_rating=last.ranking_rating, ranking_reviews=last.ranking_reviews,
        positive=last.ranking_positive, neutral=last.ranking_neutral,
        negative=last.ranking_negative, position=position, ranked=ranked)


def _surveys(rows: list) -> Surveys | None:
    last = next((row for row in reversed(rows) if row.survey_responses is not None), None)
    if last is None:
        return None
    return Surveys(day=last.day, responses=last.survey_responses,
                   average_score=last.survey_score, nps=last.nps,
                   promoters=last.nps_promoters, passives=last.nps_passives,
                   detractors=last.nps_detractors)


def _work(*, tenant: Reseller, under: Q, start: datetime, end: datetime) -> Work:
    """What the agency changed for the client's businesses from `start` to `end`: listing
    versions made and accepted (the listing editor's and the bulk changes' alike), bulk
    changes sent, media uploads sent and added."""
    in_period = Q(created_at__gte=start, created_at__lt=end)
    versions = ListingVersion.objects.filter(reseller=tenant).filter(under)
    version_counts = versions.aggregate(
        sent=Count("pk", filter=in_period),
        accepted=Count("pk", filter=Q(accepted_at__gte=start, accepted_at__lt=end)),
        refused=Count("pk", filter=in_period & Q(
            accepted_at__isnull=True,
            outbox_entry__state__in=[OutboxEntry.State.REJECTED, OutboxEntry.State.FAILED])))
    items = BulkChangeItem.objects.filter(reseller=tenant).filter(under).filter(
        change__started_at__gte=start, change__started_at__lt=end)
    bulk_counts = items.aggregate(
        changes=Count("change", distinct=True),
        changed=Count("pk", filter=Q(state=BulkChangeItem.State.ACCEPTED)))
    media = OutboxEntry.objects.filter(reseller=tenant, kind=OutboxEntry.Kind.MEDIA_ADD)
    media = media.filter(under)
    media_counts = media.aggregate(
        sent=Count("pk", filter=in_period),
        added=Count("pk", filter=Q(state=OutboxEntry.State.ACCEPTED, finished_at__gte=start,
                                   finished_at__lt=end)))

    latest: list[Activity] = []
    for version in (versions.filter(in_period).select_related("business", "outbox_entry")
                    .defer("document", "payload", "business__raw", "outbox_entry__payload",
                           "outbox_entry__provider_reply")
                    .order_by("-created_at", "-pk")[:CHANGES_SHOWN]):
        latest.append(Activity(at=version.created_at, kind="Listing update",
                               what=version.summary or f"Version {version.number}",
                               where=version.business.name,
                               state=OutboxEntry.State(version.state).label))
    changes = list(BulkChange.objects.filter(reseller=tenant, started_at__gte=start,
                                             started_at__lt=end,
                                             pk__in=items.values("change"))
                   .order_by("-started_at", "-pk")[:CHANGES_SHOWN])
    located = dict(items.filter(change__in=changes).values("change")
                   .annotate(n=Count("pk")).values_list("change", "n").order_by())
    for change in changes:
        value = change.set if isinstance(change.set, dict) else {}
        parts = part_labels(f"{section}.{name}" for section, fields in value.items()
                            if isinstance(fields, dict) for name in fields)
        in_subtree = located.get(change.pk, 0)
        latest.append(Activity(
            at=change.started_at, kind="Bulk change",
            what=", ".join(parts) or "Listing fields",
            where=f"{in_subtree} location{'s' if in_subtree != 1 else ''}",
            state=change.get_state_display()))
    for entry in (media.filter(in_period).select_related("business")
                  .defer("payload", "provider_reply", "business__raw")
                  .order_by("-created_at", "-pk")[:CHANGES_SHOWN]):
        latest.append(Activity(at=entry.created_at, kind="Media",
                               what=entry.summary or "Media upload",
                               where=entry.business.name if entry.business else "",
                               state=entry.get_state_display()))
    latest.sort(key=lambda activity: activity.at, reverse=True)
    return Work(listing_versions_sent=version_counts["sent"],
                listing_versions_accepted=version_counts["accepted"],
                listing_versions_refused=version_counts["refused"],
                bulk_changes=bulk_counts["changes"],
                bulk_locations_changed=bulk_counts["changed"],
                media_sent=media_counts["sent"], media_added=media_counts["added"],
                latest=latest[:CHANGES_SHOWN])


def _moment(day: date) -> datetime:
    """The start of `day` in the portal's time zone."""
    return timezone.make_aware(datetime.combine(day, time.min))


def report_build(*, tenant: Reseller, membership: Membership | None, business: Business | None,
                 date_from: date, date_to: date) -> Report:
    """The report of what the member may see (`membership` None: everything): the business
    given (found among what they may see: `report_business_get`), else their subtree or the
    whole account, from `date_from` to `date_to` (both included). ValidationError naming the
    field on a bad period."""
    date_from, date_to = period_check(date_from=date_from, date_to=date_to)
    subject = history_subject(tenant=tenant, membership=membership, business=business)
    node = subject.business
    visible = business_list(tenant=tenant, membership=membership)
    if node is not None:
        visible = visible.filter(node.subtree_q())
    locations, sites_now = _locations(tenant=tenant, visible=visible,
                                      limited=node is not None)

    days = history_days(tenant=tenant, subject=subject)
    rows = list(days.filter(day__gte=date_from, day__lte=date_to).order_by("day"))
    # The trend compares the period's last recorded day with the last one before the
    # period, as the trends pages compare a month with the end of the month before; a client
    # whose history starts inside the period is compared with its first day.
    before = days.filter(day__lt=date_from).order_by("-day").first()
    if before is None and len(rows) > 1:
        before = rows[0]
    last = rows[-1] if rows else None
    interval = chart_interval(date_from, date_to)
    points = [Point(period=p.period, day=p.day, synced_percent=p.row.synced_percent,
                    average_rating=p.row.average_rating, reviews=p.row.reviews,
                    sites_needing_action=p.row.need_updates,
                    locations_needing_action=p.row.needs_action)
              for p in series_of(rows, interval=interval)]
    changes = [Change(figure=figure, now=figure.value(last) if last is not None else None,
                      before=figure.value(before) if before is not None else None,
                      before_day=before.day if before is not None else None)
               for figure in FIGURES]
    reviews = None
    review_day = next((row for row in reversed(rows) if row.reviews is not None), None)
    if review_day is not None:
        rated, average = review_day.rated_and_average
        reviews = Reviews(day=review_day.day, total=review_day.reviews,
                          by_rating={star: review_day.by_rating[star] for star in (5, 4, 3, 2, 1)},
                          rated=rated, average=average)

    under = node.subtree_q(prefix="business__") if node is not None else Q()
    if membership is not None and membership.limited_to_id is not None:
        under &= membership.limited_to.subtree_q(prefix="business__")
    start, end = _moment(date_from), _moment(date_to + timedelta(days=1))
    return Report(
        reseller_name=tenant.name, subject=subject, date_from=date_from, date_to=date_to,
        made_at=timezone.now(), interval=interval, locations=locations, sites_now=sites_now,
        points=points, first_day=rows[0].day if rows else None,
        last_day=last.day if last is not None else None,
        before_day=before.day if before is not None else None,
        sites_end=_sites_of_day(last) if last is not None else None, changes=changes,
        reviews=reviews,
        late=_late(tenant=tenant, membership=membership, business=node),
        competition=_competition(tenant=tenant, last=last) if subject.is_account else None,
        surveys=_surveys(rows) if subject.is_account else None,
        work=_work(tenant=tenant, under=under, start=start, end=end))


__all__ = ["MAX_PERIOD_DAYS", "PRESETS", "Report", "chart_interval", "day_text", "period_check",
           "periods_of", "preset_period", "report_build", "report_business_get"]

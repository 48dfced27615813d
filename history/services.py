"""Writing the history: the day's figures of every business and of the account, and the prune.

`history_day_record` upserts today's rows from the mirror as it stands: a location's row in
one INSERT ... SELECT per batch of locations (aggregated in SQL, nothing loaded), the resellers'
and enterprises' rows summed from those in one grouped query and one upsert, and the account's
row. Running it again the same day rewrites the same rows (only those whose figures moved), so
the table grows by one row per business per day whatever the number of syncs. The end of each
sync run calls it (`history_after_run`), and a daily task calls it for every reseller (a day
without a sync still gets its row) before pruning what is older than the retention.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Avg, Case, Count, F, OuterRef, Q, Subquery, Sum, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import Business, Reseller
from history import ageing
from history.models import STARS, AccountDay, BusinessDay
from listings.models import AiSearchConfiguration, SiteStatusChange
from reviews_app.models import (
    CompetitiveRanking,
    CompetitorMetric,
    ReviewCount,
    Survey,
    SurveyResponse,
)

logger = logging.getLogger(__name__)

# At least two years: a year's trend compares with the year before.
RETENTION_DAYS = getattr(settings, "HISTORY_RETENTION_DAYS", 800)
# Locations per INSERT ... SELECT: each statement stays short however large the account.
LOCATION_BATCH = 10_000
SURVEY_WINDOW_DAYS = 30

# The day's figures of a status report: history column -> report column.
REPORT_COLUMNS = {"total_sites": "total_sites", "synced": "synced_count",
                  "submitted": "submitted_count", "need_updates": "need_updates_count",
                  "opted_out": "opted_out_count", "not_connected": "not_connected_count"}
SITE_FIGURES = ["locations", "reports", *REPORT_COLUMNS, "needs_action"]
REVIEW_FIGURES = ["reviews", *(f"rating_{star}" for star in STARS)]
FIGURES = [*SITE_FIGURES, *REVIEW_FIGURES]
ACCOUNT_ONLY = ["competitors", "competitor_rating", "competitor_reviews", "ranking_rating",
                "ranking_reviews", "ranking_positive", "ranking_neutral", "ranking_negative",
                "ai_quota", "ai_themes", "ai_prompts", "survey_responses", "survey_score",
                "nps_promoters", "nps_passives", "nps_detractors"]


@dataclass
class Recorded:
    """What a day's recording wrote."""

    day: date
    locations: int = 0
    containers: int = 0


def history_after_run(*, tenant: Reseller) -> None:
    """The end of a sync run: today's figures as the run left them. The run is over already, so
    a failure here is logged and left to the daily task, never raised into the run."""
    try:
        history_day_record(tenant=tenant)
    except Exception:  # noqa: BLE001 - the history must never fail a sync that succeeded
        logger.exception("history: the figures of %s after a sync were not recorded",
                         tenant.slug)
    try:
        # The late sites' counts follow the statuses the run brought; learning waits for the
        # daily task.
        ageing.ageing_refresh(tenant=tenant, learn=False)
    except Exception:  # noqa: BLE001 - as above
        logger.exception("history: the late sites of %s after a sync were not counted",
                         tenant.slug)


def history_day_record(*, tenant: Reseller, day: date | None = None) -> Recorded:
    """Upsert the day's row of every current business and of the account, from the mirror."""
    day = day or timezone.localdate()
    now = timezone.now()
    recorded = Recorded(day=day)
    with transaction.atomic():
        # Two runs ending together write the same rows: one after the other, never crossed
        # (a deadlock) nor interleaved.
        Reseller.objects.select_for_update().filter(pk=tenant.pk).first()
        recorded.locations = _locations_record(tenant=tenant, day=day, now=now)
        totals = _containers_record(tenant=tenant, day=day, now=now, recorded=recorded)
        _account_record(tenant=tenant, day=day, now=now, totals=totals)
    return recorded


def history_prune(*, tenant: Reseller, today: date | None = None) -> dict[str, int]:
    """Delete the days and site status changes older than the retention (one statement each)."""
    today = today or timezone.localdate()
    keep_from = today - timedelta(days=RETENTION_DAYS)
    since = timezone.make_aware(datetime.combine(keep_from, datetime.min.time()))
    return {
        "business_days": BusinessDay.objects.filter(reseller=tenant, day__lt=keep_from)
        .delete()[0],
        "account_days": AccountDay.objects.filter(reseller=tenant, day__lt=keep_from)
        .delete()[0],
        "status_changes": SiteStatusChange.objects.filter(reseller=tenant, at__lt=since)
        .delete()[0],
    }


# -- locations: INSERT ... SELECT ---------------------------------------------------------------


def _locations_record(*, tenant: Reseller, day: date, now: datetime) -> int:
    locations = Business.objects.filter(reseller=tenant, type=Business.Type.BUSINESS,
                                        removed_at__isnull=True)
    ids = list(locations.order_by("pk").values_list("pk", flat=True))
    if not ids:
        return 0
    # Review counts of single locations exist only where a member limited to one synced them:
    # without any, the batches skip the lookups.
    with_reviews = (ReviewCount.objects.filter(reseller=tenant, removed_at__isnull=True)
                    .exclude(remote_id=tenant.account_number).exists())
    for start in range(0, len(ids), LOCATION_BATCH):
        batch = ids[start:start + LOCATION_BATCH]
        names, select = _location_select(
            locations.filter(pk__gte=batch[0], pk__lte=batch[-1]), tenant=tenant, day=day,
            now=now, with_reviews=with_reviews)
        _upsert_select(names, select)
    return len(ids)


def _one_if(condition: Q) -> Case:
    return Case(When(condition, then=Value(1)), default=Value(0),
                output_field=models.IntegerField())


class StarCount(models.Func):
    """The count of one star in a review count's `count_by_rating` ({"5": 12}). The ORM's key
    lookup reads a key that looks like a number as a position in an array, hence this."""

    output_field = models.IntegerField()

    def __init__(self, star: int) -> None:
        super().__init__(F("count_by_rating"))
        self.star = star

    def as_sql(self, compiler, connection, **extra):
        column, params = compiler.compile(self.source_expressions[0])
        return f"(({column}) ->> %s)::integer", [*params, str(self.star)]

    def as_sqlite(self, compiler, connection, **extra):
        column, params = compiler.compile(self.source_expressions[0])
        return f"CAST(JSON_EXTRACT({column}, %s) AS INTEGER)", [*params, f'$."{self.star}"']


def _rating_of(counts: models.QuerySet, star: int) -> Subquery:
    return Subquery(counts.annotate(n=Coalesce(StarCount(star), Value(0))).values("n")[:1],
                    output_field=models.IntegerField())


def _location_select(locations: models.QuerySet, *, tenant: Reseller, day: date, now: datetime,
                     with_reviews: bool) -> tuple[list[str], models.QuerySet]:
    """The columns to upsert and the query selecting them, in that order (values() keeps
    the order it is given)."""
    no_count = Value(None, output_field=models.IntegerField())
    reviews = dict.fromkeys(REVIEW_FIGURES, no_count)
    if with_reviews:
        counts = ReviewCount.objects.filter(reseller=tenant, remote_id=OuterRef("remote_id"),
                                            removed_at__isnull=True)
        reviews = {"reviews": Subquery(counts.values("review_count")[:1],
                                       output_field=models.IntegerField()),
                   **{f"rating_{star}": _rating_of(counts, star) for star in STARS}}
    columns = {
        "reseller_id": Value(tenant.pk, output_field=models.BigIntegerField()),
        "business_id": F("pk"),
        "day": Value(day, output_field=models.DateField()),
        "locations": Value(1, output_field=models.IntegerField()),
        "reports": _one_if(Q(status_report__isnull=False)),
        **{name: Coalesce(F(f"status_report__{column}"), Value(0))
           for name, column in REPORT_COLUMNS.items()},
        "needs_action": _one_if(Q(status_report__needs_action=True)),
        **reviews,
        "recorded_at": Value(now, output_field=models.DateTimeField()),
    }
    # Aliases apart from the model's own names (business_id, day...), which they would shadow.
    aliases = {f"h_{name}": expression for name, expression in columns.items()}
    return list(columns), locations.order_by().annotate(**aliases).values(*aliases)


def _upsert_select(names: list[str], select: models.QuerySet) -> None:
    """INSERT ... SELECT ... ON CONFLICT DO UPDATE of business days, rewriting a row only when
    one of its figures moved (an unchanged row is not written again)."""
    quote = connection.ops.quote_name
    table = quote(BusinessDay._meta.db_table)
    columns = [quote(name) for name in names]
    figures = [quote(name) for name in FIGURES]
    distinct = "IS DISTINCT FROM" if connection.vendor == "postgresql" else "IS NOT"
    sql, params = select.query.sql_with_params()
    updates = ", ".join(f"{c} = excluded.{c}" for c in [*figures, quote("recorded_at")])
    moved = " OR ".join(f"{table}.{c} {distinct} excluded.{c}" for c in figures)
    key = ", ".join(quote(name) for name in ("reseller_id", "business_id", "day"))
    # Names come from the model; every value is a parameter of the compiled SELECT.
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) {sql} "  # noqa: S608
            f"ON CONFLICT ({key}) DO UPDATE SET {updates} WHERE {moved}", params)


# -- resellers and enterprises: sums of their locations ----------------------------------------


@dataclass
class Sums:
    """A subtree's figures: the sums of its locations, with its locations' review counts
    apart (a container with counts of its own uses those instead)."""

    sites: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SITE_FIGURES, 0))
    reviews: dict[str, int] | None = None

    def add(self, other: Sums) -> None:
        for name, value in other.sites.items():
            self.sites[name] += value
        if other.reviews is not None:
            if self.reviews is None:
                self.reviews = dict.fromkeys(REVIEW_FIGURES, 0)
            for name, value in other.reviews.items():
                self.reviews[name] += value


def _review_counts(*, tenant: Reseller) -> dict[int, dict[str, int]]:
    """The review figures of every business number the mirror has counts for (the account,
    and the roots synced by limited members: a handful of rows)."""
    found = {}
    for remote_id, total, by_rating in ReviewCount.objects.filter(
            reseller=tenant, removed_at__isnull=True).values_list(
            "remote_id", "review_count", "count_by_rating"):
        by_rating = by_rating or {}
        found[remote_id] = {"reviews": total,
                            **{f"rating_{star}": int(by_rating.get(str(star)) or 0)
                               for star in STARS}}
    return found


def _containers_record(*, tenant: Reseller, day: date, now: datetime,
                       recorded: Recorded) -> Sums:
    """Sum the day's location rows per parent in one grouped query, roll the sums up the
    containers (far fewer than locations) and upsert a row per container. Returns the
    account's sums."""
    by_parent: dict[int | None, Sums] = {}
    groups = (BusinessDay.objects.filter(reseller=tenant, day=day,
                                         business__type=Business.Type.BUSINESS,
                                         business__removed_at__isnull=True)
              .order_by().values("business__parent_id")
              .annotate(**{name: Sum(name) for name in SITE_FIGURES},
                        reviewed=Count("reviews"),
                        **{f"r_{name}": Sum(name) for name in REVIEW_FIGURES}))
    for group in groups:
        sums = Sums(sites={name: group[name] or 0 for name in SITE_FIGURES})
        if group["reviewed"]:
            sums.reviews = {name: group[f"r_{name}"] or 0 for name in REVIEW_FIGURES}
        by_parent[group["business__parent_id"]] = sums
    containers = list(Business.objects.filter(reseller=tenant, removed_at__isnull=True)
                      .exclude(type=Business.Type.BUSINESS)
                      .values_list("pk", "parent_id", "depth", "remote_id"))
    own_counts = _review_counts(tenant=tenant)
    totals: dict[int, Sums] = {}
    for pk, _parent, _depth, _remote in containers:
        totals[pk] = Sums()
        if pk in by_parent:
            totals[pk].add(by_parent[pk])
    account = Sums()
    for parent, sums in by_parent.items():
        if parent is None or parent not in totals:
            account.add(sums)  # directly under the account (or under a removed container)
    # Deepest first, so that a container's sums are whole before they reach its parent.
    for pk, parent, _depth, _remote in sorted(containers, key=lambda row: -row[2]):
        (totals[parent] if parent in totals else account).add(totals[pk])
    rows = []
    for pk, _parent, _depth, remote_id in containers:
        sums = totals[pk]
        reviews = own_counts.get(remote_id, sums.reviews) or dict.fromkeys(REVIEW_FIGURES)
        rows.append(BusinessDay(reseller=tenant, business_id=pk, day=day, recorded_at=now,
                                **sums.sites, **reviews))
    BusinessDay.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["reseller", "business", "day"],
        update_fields=[*FIGURES, "recorded_at"], batch_size=LOCATION_BATCH)
    recorded.containers = len(rows)
    account.reviews = own_counts.get(tenant.account_number)
    return account


# -- the account --------------------------------------------------------------------------------


def _decimal(value, places: str = "0.01") -> Decimal | None:
    if value is None:
        return None
    return Decimal(str(value)).quantize(Decimal(places))


def _account_record(*, tenant: Reseller, day: date, now: datetime, totals: Sums) -> None:
    row = AccountDay(reseller=tenant, day=day, recorded_at=now, **totals.sites,
                     **(totals.reviews or dict.fromkeys(REVIEW_FIGURES)))
    competitors = CompetitorMetric.objects.filter(reseller=tenant, removed_at__isnull=True) \
        .aggregate(n=Count("pk"), rating=Avg("overall_rating"), reviews=Sum("review_count"))
    if competitors["n"]:
        row.competitors = competitors["n"]
        row.competitor_rating = _decimal(competitors["rating"])
        row.competitor_reviews = competitors["reviews"] or 0
    ranking = CompetitiveRanking.objects.filter(
        reseller=tenant, remote_id=tenant.account_number, removed_at__isnull=True).first()
    if ranking is not None:
        row.ranking_rating = ranking.rating
        row.ranking_reviews = ranking.count
        row.ranking_positive = ranking.positive_count
        row.ranking_neutral = ranking.neutral_count
        row.ranking_negative = ranking.negative_count
    ai = AiSearchConfiguration.objects.filter(
        reseller=tenant, remote_id=tenant.account_number, removed_at__isnull=True).first()
    if ai is not None:
        row.ai_quota = ai.quota
        row.ai_themes = len(ai.themes or [])
        row.ai_prompts = sum(len(theme.get("prompts") or []) for theme in ai.themes or []
                             if isinstance(theme, dict))
    if Survey.objects.filter(reseller=tenant).exists():
        _survey_figures(row, SurveyResponse.objects.filter(
            reseller=tenant, removed_at__isnull=True, completed=True,
            response_date__gt=day - timedelta(days=SURVEY_WINDOW_DAYS),
            response_date__lte=day).values_list("overall_score", "answers"))
    AccountDay.objects.bulk_create(
        [row], update_conflicts=True, unique_fields=["reseller", "day"],
        update_fields=[*FIGURES, *ACCOUNT_ONLY, "recorded_at"])


def nps_answer(answers: Iterable) -> int | None:
    """The 0-10 answer of a response's Net Promoter question, or None without one."""
    for answer in answers or []:
        if not isinstance(answer, dict) or answer.get("questionType") != "nps":
            continue
        text = str(answer.get("answer") or "").strip()
        if text.isascii() and text.isdigit() and 0 <= int(text) <= 10:
            return int(text)
    return None


def _survey_figures(row: AccountDay, responses: Iterable[tuple[str, list]]) -> None:
    count, scores, nps = 0, [], [0, 0, 0]  # promoters, passives, detractors
    for overall_score, answers in responses:
        count += 1
        try:
            scores.append(Decimal(str(overall_score).strip()))
        except (InvalidOperation, ValueError):
            pass  # a score that is not a number is in no average
        answer = nps_answer(answers)
        if answer is not None:
            nps[0 if answer >= 9 else 1 if answer >= 7 else 2] += 1
    row.survey_responses = count
    finite = [score for score in scores if score.is_finite()]
    row.survey_score = _decimal(sum(finite) / len(finite)) if finite else None
    if any(nps):
        row.nps_promoters, row.nps_passives, row.nps_detractors = nps


def history_reseller_ids() -> list[int]:
    """The resellers whose day the daily task records: all but the suspended (this crosses
    tenants on purpose: it is the schedule's list)."""
    return list(Reseller.objects.exclude(status=Reseller.Status.SUSPENDED)
                .values_list("pk", flat=True))


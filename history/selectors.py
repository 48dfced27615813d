"""Reads of the history: a subject's days (a business, a member's subtree or the account),
their series by day, week or month, and the period-over-period figures.

A point of a series is the last recorded day of its period: the figures are levels (sites
synced, reviews counted over the sync's window), so a week's or a month's value is where it
ended. Every read is one indexed range of at most one row a day; the pages read one range for
both their charts and their comparisons.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Business, Membership, Reseller
from history.models import AccountDay, BusinessDay, DayFigures
from listings.models import SiteStatusChange

INTERVALS = ("day", "week", "month")
# What a series covers when no start is given: about as many points for each interval.
DEFAULT_SPAN_DAYS = {"day": 89, "week": 7 * 26 - 1, "month": 730}


# -- whose days ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    """Whose history is read: the whole account, a member's subtree, or one business."""

    kind: str  # "account", "subtree" or "business"
    name: str
    business: Business | None = None

    @property
    def is_account(self) -> bool:
        return self.kind == "account"


def history_subject(*, tenant: Reseller, membership: Membership | None,
                    business: Business | None = None) -> Subject:
    """The account for a member without a limit, their subtree's root for a limited one, or
    the business asked for (which the caller found among what the member may see)."""
    if business is not None:
        return Subject(kind="business", name=business.name, business=business)
    limited_to = membership.limited_to if membership is not None else None
    if limited_to is not None:
        return Subject(kind="subtree", name=limited_to.name, business=limited_to)
    return Subject(kind="account", name=tenant.name)


def history_days(*, tenant: Reseller, subject: Subject) -> QuerySet:
    """The subject's days (AccountDay or BusinessDay rows), in no order."""
    if subject.business is None:
        return AccountDay.objects.filter(reseller=tenant).order_by()
    return BusinessDay.objects.filter(reseller=tenant, business=subject.business).order_by()


# -- series ------------------------------------------------------------------------------------


def period_start(day: date, interval: str) -> date:
    if interval == "week":
        return day - timedelta(days=day.weekday())  # weeks start on Monday
    if interval == "month":
        return day.replace(day=1)
    return day


def default_range(*, interval: str, start: date | None, end: date | None) -> tuple[date, date]:
    end = end or timezone.localdate()
    return start or end - timedelta(days=DEFAULT_SPAN_DAYS[interval]), end


@dataclass(frozen=True)
class Point:
    """One period of a series: when it starts, and its last recorded day's row."""

    period: date
    row: DayFigures

    @property
    def day(self) -> date:
        return self.row.day


def history_series(*, days: QuerySet, start: date, end: date, interval: str) -> list[Point]:
    """The series of `days` from `start` to `end`, one point per period that has a row."""
    return series_of(days.filter(day__gte=start, day__lte=end).order_by("day"),
                     interval=interval)


def series_of(rows, *, interval: str) -> list[Point]:
    """The points of rows in day order: the last row of each period."""
    points: dict[date, DayFigures] = {}
    for row in rows:
        points[period_start(row.day, interval)] = row  # the last day of its period wins
    return [Point(period=period, row=row) for period, row in points.items()]


def history_status_changes(*, tenant: Reseller, business: Business) -> QuerySet:
    """A location's site status changes, newest first (for ageing: from, to, at, source)."""
    return SiteStatusChange.objects.filter(reseller=tenant, business=business)


# -- period over period ------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """A figure the trends follow: its words, how it reads a row, and which way is better."""

    key: str
    label: str
    value: Callable[[DayFigures], float | Decimal | None]
    unit: str = ""  # "%" (compared in points), "★", or a count
    higher_is_better: bool = True

    def text(self, value) -> str:
        if value is None:
            return "–"
        if self.unit == "%":
            return f"{value:.0f}%"
        if self.unit == "★":
            return f"{value:.2f} ★"
        return f"{value:,.0f}"


FIGURES = [
    Figure("synced_percent", "Listing sites synced", lambda row: row.synced_percent, "%"),
    Figure("average_rating", "Average rating", lambda row: row.average_rating, "★"),
    Figure("reviews", "Reviews", lambda row: row.reviews),
    Figure("sites_needing_action", "Sites needing action", lambda row: row.need_updates,
           higher_is_better=False),
    Figure("locations_needing_action", "Locations needing action",
           lambda row: row.needs_action, higher_is_better=False),
]


@dataclass(frozen=True)
class Change:
    """One figure now against the end of the period before."""

    figure: Figure
    now: float | Decimal | None
    before: float | Decimal | None
    before_day: date | None

    @property
    def delta(self):
        if self.now is None or self.before is None:
            return None
        return self.now - self.before

    @property
    def direction(self) -> str:
        """"up", "down", "same" or "" (nothing to compare)."""
        delta = self.delta
        if delta is None:
            return ""
        return "up" if delta > 0 else "down" if delta < 0 else "same"

    @property
    def verdict(self) -> str:
        """"better", "worse" or "" (no change, or nothing to compare): said in words beside
        the colour, which alone would not tell everyone."""
        if self.direction in ("", "same"):
            return ""
        return ("better" if (self.direction == "up") == self.figure.higher_is_better
                else "worse")

    @property
    def delta_text(self) -> str:
        delta = self.delta
        if delta is None:
            return ""
        if delta == 0:
            return "no change"
        size = abs(delta)
        if self.figure.unit == "%":
            amount = f"{size:.0f} point{'s' if round(size) != 1 else ''}"
        elif self.figure.unit == "★":
            amount = f"{size:.2f}"
        else:
            amount = f"{size:,.0f}"
        return f"{self.direction} {amount}"

    @property
    def now_text(self) -> str:
        return self.figure.text(self.now)

    @property
    def before_text(self) -> str:
        return self.figure.text(self.before)


@dataclass(frozen=True)
class Comparison:
    """This period against the one before: each figure now against the last day of the
    period before."""

    key: str  # "month" or "quarter"
    label: str  # "This month against last"
    since_label: str  # "the end of last month"
    before_words: str  # "last month"
    latest_day: date | None
    before_day: date | None
    changes: list[Change] = field(default_factory=list)

    @property
    def comparable(self) -> bool:
        return self.latest_day is not None and self.before_day is not None


def _quarter_start(day: date) -> date:
    return day.replace(month=3 * ((day.month - 1) // 3) + 1, day=1)


def _previous_period(today: date, key: str) -> tuple[date, date]:
    start = today.replace(day=1) if key == "month" else _quarter_start(today)
    before_end = start - timedelta(days=1)
    before_start = (before_end.replace(day=1) if key == "month"
                    else _quarter_start(before_end))
    return before_start, before_end


def comparisons_start(today: date) -> date:
    """The first day the comparisons may need: the start of the quarter before."""
    return _previous_period(today, "quarter")[0]


def history_comparisons(*, days: QuerySet, today: date | None = None) -> list[Comparison]:
    """This month against last and this quarter against last (one indexed read)."""
    today = today or timezone.localdate()
    return comparisons_of(days.filter(day__gte=comparisons_start(today), day__lte=today)
                          .order_by("day"), today=today)


def comparisons_of(rows, *, today: date) -> list[Comparison]:
    """The comparisons from rows in day order that cover the quarter before `today`'s: the
    latest day of this period (none if no day of it is recorded yet) against the last recorded
    day of the one before."""
    rows = [row for row in rows if row.day <= today]
    latest = rows[-1] if rows else None
    comparisons = []
    for key, label in (("month", "This month against last"),
                       ("quarter", "This quarter against last")):
        before_start, before_end = _previous_period(today, key)
        now = latest if latest is not None and latest.day > before_end else None
        before = None
        if now is not None:
            before = next((row for row in reversed(rows)
                           if before_start <= row.day <= before_end), None)
        changes = [Change(figure=figure,
                          now=figure.value(now) if now is not None else None,
                          before=figure.value(before) if before is not None else None,
                          before_day=before.day if before is not None else None)
                   for figure in FIGURES]
        comparisons.append(Comparison(
            key=key, label=label, since_label=f"the end of last {key}",
            before_words=f"last {key}",
            latest_day=now.day if now is not None else None,
            before_day=before.day if before is not None else None, changes=changes))
    return comparisons

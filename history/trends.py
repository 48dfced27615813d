"""The trends as the pages show them: a subject's series over a span, its charts and its
period-over-period figures (reads from history.selectors, pictures from history.charts)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.utils.safestring import SafeString

from accounts.models import Business, Membership, Reseller
from history.charts import trend_chart
from history.models import DayFigures
from history.selectors import (
    Comparison,
    Point,
    Subject,
    comparisons_of,
    comparisons_start,
    default_range,
    history_days,
    history_subject,
    period_start,
    series_of,
)
from portal.charts import PALETTE


def _next_period(day: date, interval: str) -> date:
    if interval == "month":
        return (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return day + timedelta(days=7 if interval == "week" else 1)


def period_label(day: date, interval: str) -> str:
    if interval == "month":
        return day.strftime("%b %Y")
    return f"{day.day} {day:%b}"


@dataclass(frozen=True)
class ChartSpec:
    key: str
    title: str
    value: Callable[[DayFigures], float | None]
    kind: str
    text: Callable[[float], str]
    color: str
    low: float = 0
    high: float | None = None
    account_only: bool = False
    empty: str = "Nothing recorded in this period."


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _float(value) -> float | None:
    return None if value is None else float(value)


CHARTS = [
    ChartSpec("reviews", "Reviews", lambda row: row.reviews, "columns", _count, PALETTE["info"],
              empty="No review counts recorded in this period."),
    ChartSpec("average_rating", "Average rating", lambda row: _float(row.average_rating),
              "line", lambda v: f"{v:.1f} ★", PALETTE["ok"], low=1, high=5,
              empty="No rated reviews recorded in this period."),
    ChartSpec("synced_percent", "Listing sites synced", lambda row: row.synced_percent, "line",
              lambda v: f"{v:.0f}%", PALETTE["ok"], high=100,
              empty="No listing status reports recorded in this period."),
    ChartSpec("sites_needing_action", "Sites needing action", lambda row: row.need_updates,
              "columns", _count, PALETTE["warn"],
              empty="No listing status reports recorded in this period."),
    ChartSpec("nps", "Net Promoter Score (responses of the last 30 days)",
              lambda row: row.nps, "line", lambda v: f"{v:+.0f}", PALETTE["extra"], low=-100,
              high=100, account_only=True,
              empty="No survey answers to the recommendation question in this period."),
    ChartSpec("survey_score", "Average survey score (last 30 days)",
              lambda row: _float(row.survey_score), "line", lambda v: f"{v:.1f}",
              PALETTE["extra"], account_only=True,
              empty="No scored survey responses in this period."),
    ChartSpec("competitor_rating", "Competitors' average rating",
              lambda row: _float(row.competitor_rating), "line", lambda v: f"{v:.1f} ★",
              PALETTE["muted"], low=1, high=5, account_only=True,
              empty="No competitor metrics recorded in this period."),
    ChartSpec("ranking_rating", "Competitive ranking: the account's rating",
              lambda row: _float(row.ranking_rating), "line", lambda v: f"{v:.1f} ★",
              PALETTE["info"], low=1, high=5, account_only=True,
              empty="No competitive ranking recorded in this period."),
]


@dataclass
class Chart:
    key: str
    title: str
    svg: SafeString | None
    empty: str


@dataclass
class Trends:
    subject: Subject
    interval: str
    start: date
    end: date
    points: list[Point]
    comparisons: list[Comparison] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)

    @property
    def has_history(self) -> bool:
        return bool(self.points)

    @property
    def first_day(self) -> date | None:
        return self.points[0].day if self.points else None

    @property
    def interval_words(self) -> str:
        return {"day": "day by day", "week": "week by week", "month": "month by month"}[
            self.interval]


def trends_build(*, tenant: Reseller, membership: Membership | None,
                 business: Business | None = None, interval: str = "week",
                 start: date | None = None, end: date | None = None,
                 account_figures: bool = False) -> Trends:
    """The trends of what the member sees: the business given, else their subtree or the
    account; `account_figures` adds the account's own charts (competitors, surveys) when the
    subject is the account."""
    subject = history_subject(tenant=tenant, membership=membership, business=business)
    days = history_days(tenant=tenant, subject=subject)
    start, end = default_range(interval=interval, start=start, end=end)
    # One read for the charts and the comparisons, which look back to the quarter before.
    rows = list(days.filter(day__gte=min(start, comparisons_start(end)), day__lte=end)
                .order_by("day"))
    points = series_of([row for row in rows if row.day >= start], interval=interval)
    trends = Trends(subject=subject, interval=interval, start=start, end=end, points=points,
                    comparisons=comparisons_of(rows, today=end))
    by_period = {point.period: point.row for point in points}
    periods, period = [], period_start(start, interval)
    while period <= end:
        periods.append(period)
        period = _next_period(period, interval)
    with_account = account_figures and subject.is_account
    for spec in CHARTS:
        if spec.account_only and not with_account:
            continue
        values = [(p, spec.value(by_period[p]) if p in by_period else None) for p in periods]
        svg = None
        if any(value is not None for _, value in values):
            svg = trend_chart(values, title=spec.title, kind=spec.kind, text=spec.text,
                              color=spec.color, low=spec.low, high=spec.high,
                              label=lambda day: period_label(day, interval))
        trends.charts.append(Chart(key=spec.key, title=spec.title, svg=svg, empty=spec.empty))
    return trends


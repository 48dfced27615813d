"""Charts over time, drawn like the portal's other charts (portal.charts): server-rendered
SVG with no script, a <title> and an aria-label that say the figures, and the portal's palette.

A period with no recorded day leaves a gap (no column, a break in the line) instead of a zero.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from portal.charts import PALETTE

WIDTH, HEIGHT = 560, 200
LEFT, RIGHT, TOP, BOTTOM = 62, 14, 14, 32
MAX_AXIS_LABELS = 6

Value = float | None


def _n(value: float) -> str:
    return f"{value:.1f}"


def _nice_top(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at or above `value`."""
    if value <= 0:
        return 1
    power = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power


def trend_chart(points: Sequence[tuple[date, Value]], *, title: str, label: Callable[[date], str],
                text: Callable[[float], str], kind: str = "line", color: str = PALETTE["info"],
                low: float = 0, high: float | None = None) -> SafeString:
    """One figure over time: columns (counts) or a line (shares, ratings), from `low` to
    `high` (by default from 0 to a round figure above the largest value)."""
    values = [value for _, value in points if value is not None]
    top = high if high is not None else _nice_top(max(values, default=0))
    span = (top - low) or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(points), 1)

    def x(index: int) -> float:
        return LEFT + step * (index + 0.5)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - (min(max(value, low), top) - low) / span)

    grid = format_html_join("", (
        '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#dde1e7"></line>'
        '<text x="{}" y="{}" text-anchor="end" class="chart-value">{}</text>'),
        ((LEFT, WIDTH - RIGHT, _n(y(level)), _n(y(level)), LEFT - 6, _n(y(level) + 4),
          text(level)) for level in (low, low + span / 2, top)))
    every = max(1, -(-len(points) // MAX_AXIS_LABELS))
    axis = format_html_join("", (
        '<text x="{}" y="{}" text-anchor="middle" class="chart-label">{}</text>'),
        ((_n(x(i)), HEIGHT - 8, label(day)) for i, (day, _) in enumerate(points)
         if i % every == 0))
    marks = []
    if kind == "columns":
        for i, (day, value) in enumerate(points):
            if value is None:
                continue
            marks.append(format_html(
                '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {}</title>'
                '</rect>', _n(x(i) - step * 0.35), _n(y(value)), _n(step * 0.7),
                _n(y(low) - y(value)), color, label(day), text(value)))
    else:
        run: list[str] = []
        for i, (_day, value) in enumerate([*points, (None, None)]):
            if value is None:
                if len(run) > 1:
                    marks.append(format_html(
                        '<polyline points="{}" fill="none" stroke="{}" stroke-width="2.5">'
                        '</polyline>', " ".join(run), color))
                run = []
                continue
            run.append(f"{_n(x(i))},{_n(y(value))}")
        for i, (day, value) in enumerate(points):
            if value is not None:
                marks.append(format_html(
                    '<circle cx="{}" cy="{}" r="3.5" fill="{}"><title>{}: {}</title></circle>',
                    _n(x(i)), _n(y(value)), color, label(day), text(value)))
    recorded = [(day, value) for day, value in points if value is not None]
    if recorded:
        (first_day, first), (last_day, last) = recorded[0], recorded[-1]
        described = (f"{title}: {text(first)} ({label(first_day)}) to {text(last)} "
                     f"({label(last_day)}); lowest {text(min(values))}, highest "
                     f"{text(max(values))}")
    else:
        described = f"{title}: nothing recorded in this period"
    return format_html(
        '<svg class="chart trend-chart" role="img" aria-label="{}" viewBox="0 0 {} {}" '
        'width="100%" preserveAspectRatio="xMinYMin meet"><title>{}</title>{}{}{}</svg>',
        described, WIDTH, HEIGHT, title, grid, mark_safe("".join(marks)),  # noqa: S308
        axis)

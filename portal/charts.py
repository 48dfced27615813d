"""Small server-rendered SVG charts: pictures, not tables of numbers, with no JavaScript.

Each function returns markup safe to put in a template; every chart carries a <title> and an
aria-label so screen readers get the figures too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

PALETTE = {
    "ok": "#1f7a4d", "info": "#2457c5", "warn": "#a86500", "bad": "#b42318",
    "muted": "#8a93a6", "extra": "#6d4bb8",
}


@dataclass(frozen=True)
class Segment:
    label: str
    value: float
    color: str = PALETTE["info"]


def _n(value: float, places: int = 2) -> str:
    """A number as text: format_html escapes its arguments to strings before formatting."""
    return f"{value:.{places}f}"


def _describe(title: str, segments: Sequence[Segment]) -> str:
    return f"{title}: " + ", ".join(f"{s.label} {s.value:g}" for s in segments)


def bar_chart(segments: Sequence[Segment], *, title: str, width: int = 480,
              bar_height: int = 26, label_width: int = 130) -> SafeString:
    """Horizontal bars, one per segment, with the value at the end of each bar."""
    top = max((s.value for s in segments), default=0) or 1
    plot = width - label_width - 60
    height = bar_height * len(segments) + 8
    rows = []
    for index, segment in enumerate(segments):
        y = 4 + index * bar_height
        length = plot * segment.value / top
        rows.append(format_html(
            '<text x="{}" y="{}" text-anchor="end" class="chart-label">{}</text>'
            '<rect x="{}" y="{}" width="{}" height="{}" rx="3" fill="{}"></rect>'
            '<text x="{}" y="{}" class="chart-value">{}</text>',
            label_width - 8, _n(y + bar_height * 0.65, 1), segment.label,
            label_width, y + 3, _n(max(length, 0), 1), bar_height - 8, segment.color,
            _n(label_width + length + 6, 1), _n(y + bar_height * 0.65, 1),
            f"{segment.value:g}",
        ))
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="100%" '
        'preserveAspectRatio="xMinYMin meet"><title>{}</title>{}</svg>',
        _describe(title, segments), width, height, title, mark_safe("".join(rows)),  # noqa: S308
    )


def stacked_bar(segments: Sequence[Segment], *, title: str, width: int = 480,
                height: int = 22) -> SafeString:
    """One bar split into parts, with a legend below: shares of a whole."""
    total = sum(s.value for s in segments) or 1
    x, parts = 0.0, []
    for segment in segments:
        part = width * segment.value / total
        if part > 0:
            parts.append(format_html(
                '<rect x="{}" y="0" width="{}" height="{}" fill="{}"><title>{}: {}</title></rect>',
                _n(x), _n(part), height, segment.color, segment.label, f"{segment.value:g}"))
        x += part
    legend = format_html_join(
        "", '<text x="{}" y="{}" class="chart-label"><tspan fill="{}">■</tspan> {} {}</text>',
        ((8 + (i % 3) * (width // 3), height + 18 + (i // 3) * 18, s.color, s.label,
          f"{s.value:g}") for i, s in enumerate(segments)),
    )
    full_height = height + 10 + 18 * math.ceil(len(segments) / 3)
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="100%">'
        '<title>{}</title>{}{}</svg>',
        _describe(title, segments), width, full_height, title,
        mark_safe("".join(parts)), legend,  # noqa: S308 - built with format_html above
    )


def donut(segments: Sequence[Segment], *, title: str, size: int = 160,
          center_text: str = "") -> SafeString:
    """A ring of shares with a figure in the middle."""
    total = sum(s.value for s in segments)
    radius, stroke = size / 2 - 12, 22
    circumference = 2 * math.pi * radius
    offset, arcs = 0.0, []
    middle = _n(size / 2, 1)
    for segment in segments:
        if total and segment.value:
            length = circumference * segment.value / total
            arcs.append(format_html(
                '<circle r="{}" cx="{}" cy="{}" fill="none" stroke="{}" stroke-width="{}" '
                'stroke-dasharray="{} {}" stroke-dashoffset="{}" '
                'transform="rotate(-90 {} {})"><title>{}: {}</title></circle>',
                _n(radius), middle, middle, segment.color, stroke, _n(length),
                _n(circumference - length), _n(-offset), middle, middle, segment.label,
                f"{segment.value:g}"))
            offset += length
    if not arcs:
        arcs.append(format_html(
            '<circle r="{}" cx="{}" cy="{}" fill="none" stroke="#dde1e7" '
            'stroke-width="{}"></circle>', _n(radius), middle, middle, stroke))
    return format_html(
        '<svg class="chart donut" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}">'
        '<title>{}</title>{}<text x="50%" y="52%" text-anchor="middle" class="chart-center">'
        '{}</text></svg>',
        _describe(title, segments), size, size, size, title, mark_safe("".join(arcs)),  # noqa: S308
        center_text,
    )


def column_chart(columns: Sequence[tuple[str, Sequence[Segment]]], *, title: str,
                 width: int = 560, height: int = 160) -> SafeString:
    """Vertical columns over time, each stacked from its segments, labelled below."""
    top = max((sum(s.value for s in parts) for _, parts in columns), default=0) or 1
    plot_height = height - 24
    step = width / max(len(columns), 1)
    bars, labels = [], []
    for index, (label, parts) in enumerate(columns):
        x, y = index * step + step * 0.15, float(plot_height)
        for segment in parts:
            part = plot_height * segment.value / top
            if part > 0:
                y -= part
                bars.append(format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}">'
                    '<title>{} {}: {}</title></rect>',
                    _n(x), _n(y), _n(step * 0.7), _n(part), segment.color, label,
                    segment.label, f"{segment.value:g}"))
        labels.append(format_html(
            '<text x="{}" y="{}" text-anchor="middle" class="chart-label">{}</text>',
            _n(x + step * 0.35), height - 6, label))
    described = f"{title}: " + ", ".join(
        f"{label} {sum(s.value for s in parts):g}" for label, parts in columns)
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="100%">'
        '<title>{}</title>{}{}</svg>',
        described, width, height, title,
        mark_safe("".join(bars)), mark_safe("".join(labels)),  # noqa: S308 - format_html above
    )

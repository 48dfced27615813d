"""The sync benchmark's progress chart: locations mirrored against seconds, with the ideal line
(every request at exactly the rate limit), as a standalone SVG with no script."""

from __future__ import annotations

from xml.sax.saxutils import escape

WIDTH, HEIGHT = 720, 380
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 50


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = max(span, 1e-9) / ticks
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def _number(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"


def progress_svg(*, samples: list[tuple[float, int]], total: int, ideal_s: float,
                 title: str) -> str:
    """`samples` are (seconds since the sync was queued, locations mirrored)."""
    end_s = max([ideal_s, *(t for t, _ in samples)] or [1.0])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(seconds: float) -> float:
        return LEFT + plot_w * seconds / end_s

    def y(locations: float) -> float:
        return TOP + plot_h * (1 - locations / max(total, 1))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="chart-title" '
        'font-family="sans-serif" font-size="12">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    x_step, y_step = _nice_step(end_s), _nice_step(total)
    tick = 0.0
    while tick <= end_s + 1e-9:
        parts.append(f'<line x1="{x(tick):.1f}" y1="{TOP}" x2="{x(tick):.1f}" '
                     f'y2="{TOP + plot_h}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{x(tick):.1f}" y="{TOP + plot_h + 18}" '
                     f'text-anchor="middle">{_number(tick)}</text>')
        tick += x_step
    tick = 0.0
    while tick <= total + 1e-9:
        parts.append(f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + plot_w}" '
                     f'y2="{y(tick):.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{LEFT - 8}" y="{y(tick) + 4:.1f}" '
                     f'text-anchor="end">{_number(tick)}</text>')
        tick += y_step
    parts += [
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="#333"/>',
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 12}" text-anchor="middle">'
        'seconds since the sync was queued</text>',
        f'<text transform="translate(16 {TOP + plot_h / 2}) rotate(-90)" '
        'text-anchor="middle">locations mirrored</text>',
        # The ideal: every request of the run at exactly the rate limit, from the first second.
        f'<line x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(ideal_s):.1f}" y2="{y(total):.1f}" '
        'stroke="#888" stroke-width="2" stroke-dasharray="6 4"/>',
    ]
    if samples:
        points = " ".join(f"{x(t):.1f},{y(done):.1f}" for t, done in samples)
        parts.append(f'<polyline points="{points}" fill="none" stroke="#1f6feb" '
                     'stroke-width="2.5"/>')
    legend_x = LEFT + 16
    parts += [
        f'<line x1="{legend_x}" y1="{TOP + 14}" x2="{legend_x + 28}" y2="{TOP + 14}" '
        'stroke="#1f6feb" stroke-width="2.5"/>',
        f'<text x="{legend_x + 36}" y="{TOP + 18}">sync (Celery workers, mirrored)</text>',
        f'<line x1="{legend_x}" y1="{TOP + 34}" x2="{legend_x + 28}" y2="{TOP + 34}" '
        'stroke="#888" stroke-width="2" stroke-dasharray="6 4"/>',
        f'<text x="{legend_x + 36}" y="{TOP + 38}">ideal: requests / rate limit</text>',
        "</svg>",
    ]
    return "\n".join(parts) + "\n"

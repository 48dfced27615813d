"""A report drawn as a PDF (reportlab's platypus) in the reseller's brand: its product name
and colours on every page, its logo, its support address in the footer, the charts drawn as
vector pictures, page numbers.

Only the PDF's built-in fonts are used and nothing is fetched: it renders the same offline on
any machine. Every word is real text (a reader can search and copy it, and the tests read it).
"""

from __future__ import annotations

import io
import logging
from decimal import Decimal
from xml.sax.saxutils import escape

from reportlab.graphics.charts.barcharts import HorizontalBarChart
from reportlab.graphics.charts.linecharts import HorizontalLineChart
from reportlab.graphics.shapes import Drawing, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    CondPageBreak,
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from accounts.brand import ResellerBrand, brand_get, brand_logo_of
from accounts.models import Reseller
from history.selectors import Change
from portal.charts import PALETTE
from reports.selectors import HEALTH_FIGURES, REVIEW_FIGURES, Report, day_text

logger = logging.getLogger(__name__)

PAGE_WIDTH, PAGE_HEIGHT = A4
MARGIN = 18 * mm
HEADER_HEIGHT = 16 * mm
CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN
LOGO_MAX_WIDTH, LOGO_MAX_HEIGHT = 40 * mm, 12 * mm
# The portal's palette (portal.charts.PALETTE): the same colours as the pages' charts.
OK, INFO, WARN, BAD, MUTED = (colors.HexColor(PALETTE[key])
                              for key in ("ok", "info", "warn", "bad", "muted"))
LINE = colors.HexColor("#dde1e7")
# reportlab writes four bytes above 127 in its header comment; every other byte of the file is
# ASCII (the streams are ASCII85), so the file is made wholly ASCII: it then passes unchanged
# through anything that reads it as text. Same length, so no offset moves.
_BINARY_MARK = b"%\x93\x8c\x8b\x9e ReportLab"
_ASCII_MARK = b"%7bit ReportLab"


# -- words -------------------------------------------------------------------------------------


def _percent(value) -> str:
    return "-" if value is None else f"{value:.0f}%"


def _rating(value) -> str:
    return "-" if value is None else f"{Decimal(str(value)):.2f}"


def _count(value) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _figure_text(change: Change, value) -> str:
    """A history figure as the trends pages write it, with words for the star (the PDF's
    built-in fonts have no star)."""
    unit = change.figure.unit
    if value is None:
        return "-"
    if unit == "%":
        return _percent(value)
    if unit == "\u2605":
        return f"{_rating(value)} of 5"
    return _count(value)


def _delta_text(change: Change) -> str:
    text = change.delta_text
    if change.verdict:
        text += f", {change.verdict}"
    return text


# -- the page frame ----------------------------------------------------------------------------


class _NumberedCanvas(Canvas):
    """Draws "Page n of m" once the number of pages is known: each page is kept until the
    document is saved, then drawn with the total."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._pages: list[dict] = []

    def showPage(self):  # noqa: N802 - reportlab's name
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self):
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self._draw_page_number(total)
            super().showPage()
        super().save()

    def _draw_page_number(self, total: int) -> None:
        self.saveState()
        self.setFont("Helvetica", 8)
        self.setFillColor(MUTED)
        self.drawRightString(PAGE_WIDTH - MARGIN, 10 * mm,
                             f"Page {self._pageNumber} of {total}")
        self.restoreState()


def _frame(brand: ResellerBrand, logo: ImageReader | None, footer: str):
    header = colors.HexColor(brand.header_colour)

    def draw(canvas: Canvas, doc) -> None:
        canvas.saveState()
        canvas.setFillColor(header)
        canvas.rect(0, PAGE_HEIGHT - HEADER_HEIGHT, PAGE_WIDTH, HEADER_HEIGHT, stroke=0, fill=1)
        canvas.setFillColor(colors.white)
        canvas.setFont("Helvetica-Bold", 13)
        canvas.drawString(MARGIN, PAGE_HEIGHT - HEADER_HEIGHT + 5.5 * mm, brand.product_name)
        if logo is not None:
            width, height = logo.getSize()
            scale = min(LOGO_MAX_WIDTH / width, LOGO_MAX_HEIGHT / height, 1)
            # On a white card: a dark logo stays readable on a dark header.
            w, h = width * scale, height * scale
            x, y = PAGE_WIDTH - MARGIN - w, PAGE_HEIGHT - HEADER_HEIGHT + (HEADER_HEIGHT - h) / 2
            canvas.setFillColor(colors.white)
            canvas.roundRect(x - 1.5 * mm, y - 1 * mm, w + 3 * mm, h + 2 * mm, 1.5 * mm,
                             stroke=0, fill=1)
            canvas.drawImage(logo, x, y, width=w, height=h, mask="auto")
        canvas.setStrokeColor(LINE)
        canvas.line(MARGIN, 14 * mm, PAGE_WIDTH - MARGIN, 14 * mm)
        canvas.setFont("Helvetica", 8)
        canvas.setFillColor(MUTED)
        canvas.drawString(MARGIN, 10 * mm, footer)
        canvas.restoreState()

    return draw


def _logo(brand: ResellerBrand) -> ImageReader | None:
    if not brand.has_logo:
        return None
    try:
        logo = brand_logo_of(brand)
        if logo is None:
            return None
        data, _ = logo.png()
        return ImageReader(io.BytesIO(data))
    except Exception:  # a logo that will not draw never stops the report
        logger.exception("The logo of reseller %s could not be drawn in a report.",
                         brand.reseller_id)
        return None


# -- charts ------------------------------------------------------------------------------------


def _line_chart(values: list[tuple[str, float | None]], *, title: str, color, low: float,
                high: float | None, text) -> Drawing:
    width, height = CONTENT_WIDTH, 52 * mm
    drawing = Drawing(width, height)
    drawing.add(String(0, height - 10, title, fontName="Helvetica-Bold", fontSize=9))
    chart = HorizontalLineChart()
    chart.x, chart.y = 34, 22
    chart.width, chart.height = width - 44, height - 40
    chart.data = [[value for _, value in values]]
    chart.joinedLines = 1
    chart.lines[0].strokeColor = color
    chart.lines[0].strokeWidth = 1.8
    chart.lines[0].symbol = makeMarker("FilledCircle", size=3.5, fillColor=color,
                                       strokeColor=color)
    labels = [label for label, _ in values]
    every = max(1, -(-len(labels) // 8))
    chart.categoryAxis.categoryNames = [label if i % every == 0 else ""
                                        for i, label in enumerate(labels)]
    chart.categoryAxis.labels.fontName = "Helvetica"
    chart.categoryAxis.labels.fontSize = 7
    chart.categoryAxis.strokeColor = LINE
    recorded = [value for _, value in values if value is not None]
    top = high if high is not None else max(max(recorded, default=0) * 1.15, 1)
    chart.valueAxis.valueMin = low
    chart.valueAxis.valueMax = top
    chart.valueAxis.valueSteps = [low, low + (top - low) / 2, top]
    chart.valueAxis.labelTextFormat = text
    chart.valueAxis.labels.fontName = "Helvetica"
    chart.valueAxis.labels.fontSize = 7
    chart.valueAxis.strokeColor = LINE
    chart.valueAxis.visibleGrid = 1
    chart.valueAxis.gridStrokeColor = LINE
    drawing.add(chart)
    return drawing


def _bar_chart(values: list[tuple[str, int]], *, title: str, bar_colors: list) -> Drawing:
    rows = len(values)
    width, height = CONTENT_WIDTH, (rows * 7 + 18) * mm / 1.6
    drawing = Drawing(width, height)
    drawing.add(String(0, height - 10, title, fontName="Helvetica-Bold", fontSize=9))
    chart = HorizontalBarChart()
    chart.x, chart.y = 90, 6
    chart.width, chart.height = width - 140, height - 22
    # Drawn bottom up: the first row at the top.
    chart.data = [[value for _, value in reversed(values)]]
    chart.bars.strokeColor = None
    for index, color in enumerate(reversed(bar_colors)):
        chart.bars[(0, index)].fillColor = color
    chart.categoryAxis.categoryNames = [label for label, _ in reversed(values)]
    chart.categoryAxis.labels.fontName = "Helvetica"
    chart.categoryAxis.labels.fontSize = 8
    chart.categoryAxis.strokeColor = LINE
    chart.valueAxis.valueMin = 0
    chart.valueAxis.valueMax = max(max((v for _, v in values), default=0), 1)
    chart.valueAxis.visible = 0
    chart.barLabelFormat = "%d"
    chart.barLabels.fontName = "Helvetica"
    chart.barLabels.fontSize = 8
    chart.barLabels.boxAnchor = "w"
    chart.barLabels.dx = 3
    drawing.add(chart)
    return drawing


# -- the document ------------------------------------------------------------------------------


class _Styles:
    def __init__(self, brand: ResellerBrand):
        base = getSampleStyleSheet()
        accent = colors.HexColor(brand.header_colour)
        self.title = ParagraphStyle("title", parent=base["Title"], fontName="Helvetica-Bold",
                                    fontSize=20, leading=24, alignment=0, spaceAfter=2 * mm,
                                    textColor=accent)
        self.h2 = ParagraphStyle("h2", parent=base["Heading2"], fontName="Helvetica-Bold",
                                 fontSize=13, leading=16, spaceBefore=5 * mm, spaceAfter=2 * mm,
                                 textColor=accent)
        self.body = ParagraphStyle("body", parent=base["BodyText"], fontName="Helvetica",
                                   fontSize=9.5, leading=13)
        self.muted = ParagraphStyle("muted", parent=self.body, textColor=MUTED, fontSize=8.5,
                                    leading=11)
        self.cell = ParagraphStyle("cell", parent=self.body, fontSize=8.5, leading=10.5)
        self.cell_right = ParagraphStyle("cell_right", parent=self.cell, alignment=TA_RIGHT)
        self.figure = ParagraphStyle("figure", parent=self.body, fontName="Helvetica-Bold",
                                     fontSize=16, leading=19, textColor=accent)


def _p(text: str, style) -> Paragraph:
    return Paragraph(text, style)


def _e(value) -> str:
    return escape(str(value))


def _table(header: list[str], rows: list[list], styles: _Styles, widths: list[float],
           numeric: set[int] = frozenset()) -> Table:
    def cell(index: int, value) -> Paragraph:
        return _p(_e(value), styles.cell_right if index in numeric else styles.cell)

    data = [[_p(f"<b>{_e(h)}</b>", styles.cell_right if i in numeric else styles.cell)
             for i, h in enumerate(header)]]
    data += [[cell(i, value) for i, value in enumerate(row)] for row in rows]
    table = Table(data, colWidths=[w * CONTENT_WIDTH for w in widths], repeatRows=1)
    table.setStyle(TableStyle([
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, MUTED),
        ("LINEBELOW", (0, 1), (-1, -1), 0.4, LINE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]))
    return table


def _tiles(tiles: list[tuple[str, str]], styles: _Styles) -> Table:
    """Key figures side by side: (figure, what it is)."""
    cells = [[_p(_e(figure), styles.figure), _p(_e(label), styles.muted)]
             for figure, label in tiles]
    table = Table([cells], colWidths=[CONTENT_WIDTH / len(tiles)] * len(tiles))
    table.setStyle(TableStyle([
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("BOX", (0, 0), (-1, -1), 0.5, LINE),
        ("INNERGRID", (0, 0), (-1, -1), 0.5, LINE),
        ("TOPPADDING", (0, 0), (-1, -1), 5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
    ]))
    return table


def _changes_table(report: Report, keys, styles: _Styles) -> Table | Paragraph:
    if report.last_day is None:
        return _p("Nothing was recorded in this period.", styles.muted)
    rows = []
    for key in keys:
        change = report.change(key)
        rows.append([change.figure.label, _figure_text(change, change.now),
                     _figure_text(change, change.before), _delta_text(change) or "-"])
    before = f"At {day_text(report.before_day)}" if report.before_day else "Before"
    return _table(["Figure", f"At {day_text(report.last_day)}", before, "Change"], rows, styles,
                  [0.34, 0.18, 0.22, 0.26], numeric={1, 2})


def _label(period, interval: str) -> str:
    return period.strftime("%b %Y") if interval == "month" else f"{period.day} {period:%b}"


def _story(report: Report, brand: ResellerBrand, styles: _Styles) -> list:
    story: list = []
    add = story.append
    add(_p(f"Report for {_e(report.client_name)}", styles.title))
    add(_p(f"{_e(report.period_text)} &middot; {_e(report.client_words)}", styles.body))
    number = (f" &middot; Business number {report.business_number}"
              if report.business_number is not None else "")
    add(_p(f"Prepared by {_e(report.reseller_name)} with {_e(brand.product_name)} on "
           f"{_e(day_text(report.made_at))}{number}", styles.muted))
    add(Spacer(1, 4 * mm))
    sites_now, locations = report.sites_now, report.locations
    reviews = report.reviews
    add(_tiles([
        (_count(locations.count), "locations"),
        (_percent(sites_now.synced_percent), "of listing sites synced now"),
        (_count(locations.needing_action), "locations needing action"),
        (_count(report.late.count), "sites late"),
        (_rating(reviews.average if reviews else None),
         f"average rating of {_count(reviews.total) if reviews else 0} reviews"),
    ], styles))

    # -- listing sync health
    add(_p("Listing sync health", styles.h2))
    add(_p(f"Now: <b>{_percent(sites_now.synced_percent)}</b> of {_count(sites_now.total)} "
           f"listing sites synced, on {_count(sites_now.reports)} location"
           f"{'s' if sites_now.reports != 1 else ''} with a status report.", styles.body))
    if sites_now.total:
        add(_bar_chart(sites_now.by_status, title="Listing sites by status now",
                       bar_colors=[OK, INFO, WARN, MUTED, BAD]))
    add(Spacer(1, 2 * mm))
    add(_p(f"Over the period, as recorded each day ({_e(_interval_words(report.interval))}):",
           styles.body))
    add(_changes_table(report, HEALTH_FIGURES, styles))
    if report.has_history:
        add(_line_chart([(_label(p, report.interval), v)
                         for p, v in report.series("synced_percent")],
                        title="Listing sites synced", color=OK, low=0, high=100,
                        text=lambda v: f"{v:.0f}%"))

    # -- locations needing action
    add(CondPageBreak(50 * mm))
    add(_p("Locations needing action", styles.h2))
    if locations.first:
        tiers = "; ".join(f"{label}: {count}" for label, count, _ in locations.work_legend
                          if count)
        add(_p(f"{_count(locations.needing_action)} of {_count(locations.count)} locations "
               f"need action now ({_e(tiers)}). Those asking the most work:", styles.body))
        add(_table(["Location", "Work to do", "Sites"],
                   [[f"{row.name} ({row.business_number})", row.work,
                     ", ".join(part for part in (row.sites, row.late) if part) or "-"]
                    for row in locations.first], styles, [0.45, 0.25, 0.30]))
    else:
        add(_p("No location needs action now.", styles.body))

    # -- late sites
    add(_p("Sites late", styles.h2))
    late = report.late
    if late.count:
        add(_p(f"{_count(late.count)} site{'s' if late.count != 1 else ''} late against "
               "their directory's usual delay now ("
               + ", ".join(f"{status}: {n}" for status, n in late.by_status.items())
               + "). The most late:", styles.body))
        add(_table(["Location", "Site", "Status", "Late by"],
                   [[f"{row.location} ({row.business_number})", row.site, row.status,
                     row.late_by] for row in late.first], styles,
                   [0.38, 0.24, 0.2, 0.18]))
    else:
        add(_p("No site is late against its directory's usual delay.", styles.body))

    # -- reviews
    add(CondPageBreak(60 * mm))
    add(_p("Reviews", styles.h2))
    if reviews is not None:
        add(_p(f"<b>{_count(reviews.total)}</b> reviews at {_e(day_text(reviews.day))}, "
               f"average rating <b>{_rating(reviews.average)} of 5</b> over the "
               f"{_count(reviews.rated)} with a rating"
               + (f" ({_count(reviews.unrated)} without a rating)" if reviews.unrated else "")
               + ".", styles.body))
        add(_bar_chart([(f"{star} stars" if star != 1 else "1 star", n)
                        for star, n in reviews.by_rating.items()],
                       title="Reviews by rating",
                       bar_colors=[OK, OK, WARN, BAD, BAD]))
        add(_changes_table(report, REVIEW_FIGURES, styles))
        if any(v is not None for _, v in report.series("average_rating")):
            add(_line_chart([(_label(p, report.interval), v)
                             for p, v in report.series("average_rating")],
                            title="Average rating", color=OK, low=1, high=5,
                            text=lambda v: f"{v:.1f}"))
    else:
        add(_p("No review counts were recorded in this period.", styles.body))

    # -- competitors and ranking, surveys: the account's alone
    competition = report.competition
    if competition is not None:
        add(CondPageBreak(45 * mm))
        add(_p("Competitors and ranking", styles.h2))
        rows = []
        if competition.has_competitors:
            rows.append(["Your average rating", _rating(competition.average_rating)])
            rows.append(["Competitors' average rating", _rating(competition.competitor_rating)])
            rows.append(["Competitor rows compared (location on a source)",
                         _count(competition.competitor_rows)])
            rows.append(["Competitors' reviews", _count(competition.competitor_reviews)])
        if competition.has_ranking:
            rows.append(["Ranking: your rating", _rating(competition.ranking_rating)])
            rows.append(["Ranking: reviews", _count(competition.ranking_reviews)])
            rows.append(["Ranking: positive mentions", _percent(competition.positive_percent)])
            if competition.position is not None:
                rows.append(["Position among the ranked (last sync)",
                             f"{competition.position} of {competition.ranked}"])
        add(_p(f"At {_e(day_text(competition.day))}.", styles.muted))
        add(_table(["Figure", "Value"], rows, styles, [0.7, 0.3], numeric={1}))
    surveys = report.surveys
    if surveys is not None:
        add(_p("Survey scores", styles.h2))
        add(_table(["Figure", "Value"], [
            ["Completed responses (30 days)", _count(surveys.responses)],
            ["Average score", "-" if surveys.average_score is None
             else f"{surveys.average_score:.1f}"],
            ["Net Promoter Score", "-" if surveys.nps is None else f"{surveys.nps:+d}"],
            ["Promoters / passives / detractors",
             f"{_count(surveys.promoters)} / {_count(surveys.passives)} / "
             f"{_count(surveys.detractors)}"],
        ], styles, [0.7, 0.3], numeric={1}))
        add(_p(f"At {_e(day_text(surveys.day))}.", styles.muted))

    # -- what the agency changed
    add(CondPageBreak(50 * mm))
    add(_p("What we changed", styles.h2))
    work = report.work
    add(_table(["In this period", "Count"], [
        ["Listing updates sent", _count(work.listing_versions_sent)],
        ["Listing updates accepted by the provider", _count(work.listing_versions_accepted)],
        ["Listing updates refused", _count(work.listing_versions_refused)],
        ["Bulk changes sent", _count(work.bulk_changes)],
        ["Locations changed by bulk changes", _count(work.bulk_locations_changed)],
        ["Photos and videos sent", _count(work.media_sent)],
        ["Photos and videos added", _count(work.media_added)],
    ], styles, [0.7, 0.3], numeric={1}))
    if work.latest:
        add(Spacer(1, 3 * mm))
        add(KeepTogether([_p("The latest:", styles.body), _table(
            ["When", "What", "Change", "Where", "State"],
            [[day_text(a.at), a.kind, a.what, a.where, a.state] for a in work.latest],
            styles, [0.14, 0.15, 0.33, 0.24, 0.14])]))
    add(Spacer(1, 6 * mm))
    add(_p("Figures over the period are those the portal recorded each day from the "
           "provider; figures said to be now are as of the report's making.", styles.muted))
    return story


def _interval_words(interval: str) -> str:
    return {"day": "day by day", "week": "week by week", "month": "month by month"}[interval]


def report_pdf(report: Report, *, tenant: Reseller) -> tuple[bytes, int]:
    """The PDF of `report` in `tenant`'s brand: (its bytes, its number of pages)."""
    brand = brand_get(tenant=tenant)
    styles = _Styles(brand)
    footer = f"{brand.product_name} \u00b7 {report.reseller_name}"
    if brand.support_email:
        footer += f" \u00b7 Questions: {brand.support_email}"
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer, pagesize=A4, leftMargin=MARGIN, rightMargin=MARGIN,
        topMargin=HEADER_HEIGHT + 8 * mm, bottomMargin=20 * mm,
        title=f"Report for {report.client_name}, {report.period_text}",
        author=report.reseller_name, creator=brand.product_name, subject="Client report")
    frame = _frame(brand, _logo(brand), footer)
    pages = []

    def canvas_maker(*args, **kwargs):
        canvas = _NumberedCanvas(*args, **kwargs)
        pages.append(canvas)
        return canvas

    doc.build(_story(report, brand, styles), onFirstPage=frame, onLaterPages=frame,
              canvasmaker=canvas_maker)
    pdf = buffer.getvalue().replace(_BINARY_MARK, _ASCII_MARK, 1)
    return pdf, len(pages[-1]._pages)

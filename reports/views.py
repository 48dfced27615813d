"""The report page and its PDF: a client's results over a period, of what the member sees."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
from django.utils.safestring import SafeString
from django.views.generic import TemplateView

from accounts.settings_selectors import limit_suggestions
from accounts.tenant_views import TenantViewMixin
from history.charts import trend_chart
from portal.charts import PALETTE, Segment, bar_chart
from reports.forms import CLIENT_DATALIST_ID, ReportForm
from reports.rendering import report_rendered
from reports.selectors import HEALTH_FIGURES, REVIEW_FIGURES, Report, report_build


def _label(interval: str):
    def label(day) -> str:
        return day.strftime("%b %Y") if interval == "month" else f"{day.day} {day:%b}"
    return label


def report_charts(report: Report) -> dict[str, SafeString | None]:
    """The page's pictures of the report (SVG, as the trends and the dashboard draw them);
    None where there is nothing to draw."""
    label = _label(report.interval)
    charts: dict[str, SafeString | None] = {}
    for key, title, text, color, low, high in (
            ("synced_percent", "Listing sites synced", lambda v: f"{v:.0f}%", PALETTE["ok"],
             0, 100),
            ("average_rating", "Average rating", lambda v: f"{v:.1f} ★", PALETTE["ok"], 1, 5),
            ("sites_needing_action", "Sites needing action", lambda v: f"{v:,.0f}",
             PALETTE["warn"], 0, None)):
        values = report.series(key)
        charts[key] = (trend_chart(values, title=title, label=label, text=text,
                                   kind="columns" if key == "sites_needing_action" else "line",
                                   color=color, low=low, high=high)
                       if any(value is not None for _, value in values) else None)
    sites = report.sites_now
    status_colors = [PALETTE["ok"], PALETTE["info"], PALETTE["warn"], PALETTE["muted"],
                     PALETTE["bad"]]
    charts["sites_by_status"] = bar_chart(
        [Segment(name, value, color) for (name, value), color in zip(sites.by_status,
                                                                     status_colors,
                                                                     strict=True)],
        title="Listing sites by status now", label_width=120) if sites.total else None
    reviews = report.reviews
    charts["reviews_by_rating"] = bar_chart(
        [Segment(f"{star} ★", count, PALETTE["ok"] if star >= 4 else
                 PALETTE["warn"] if star == 3 else PALETTE["bad"])
         for star, count in reviews.by_rating.items()],
        title="Reviews by rating", label_width=60) if reviews and reviews.total else None
    return charts


class ReportView(TenantViewMixin, TemplateView):
    """Choose a client and a period; the report shows below, with its PDF to download."""

    template_name = "reports/report.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        form = ReportForm(self.request.GET or None, tenant=self.tenant,
                          membership=self.membership)
        report = None
        if not self.request.GET:
            # First visit: last month of everything the member sees.
            form = ReportForm({"period": "last_month"}, tenant=self.tenant,
                              membership=self.membership)
        if form.is_valid():
            data = form.cleaned_data
            report = report_build(tenant=self.tenant, membership=self.membership,
                                  business=data["client"], date_from=data["from"],
                                  date_to=data["to"])
            context.update(
                charts=report_charts(report), pdf_query=urlencode(form.query()),
                health_changes=[report.change(key) for key in HEALTH_FIGURES],
                review_changes=[report.change(key) for key in REVIEW_FIGURES])
        context.update(form=form, report=report, client_datalist_id=CLIENT_DATALIST_ID,
                       client_suggestions=limit_suggestions(tenant=self.tenant,
                                                            membership=self.membership))
        return context


class ReportPdfView(TenantViewMixin, TemplateView):
    """The report as a PDF file in the reseller's brand (`?business=&from=&to=`; without
    them, last month of everything the member sees). Wrong parameters show the page with
    what is wrong (400)."""

    template_name = "reports/report.html"

    def get(self, request, *args, **kwargs):
        form = ReportForm(request.GET or {"period": "last_month"}, tenant=self.tenant,
                          membership=self.membership)
        if not form.is_valid():
            context = self.get_context_data(
                form=form, report=None, client_datalist_id=CLIENT_DATALIST_ID,
                client_suggestions=limit_suggestions(tenant=self.tenant,
                                                     membership=self.membership))
            return self.render_to_response(context, status=400)
        data = form.cleaned_data
        report = report_build(tenant=self.tenant, membership=self.membership,
                              business=data["client"], date_from=data["from"],
                              date_to=data["to"])
        rendered = report_rendered(tenant=self.tenant, report=report)
        response = HttpResponse(rendered.pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="{rendered.filename}"'
        response["Cache-Control"] = "private, no-store"
        return response

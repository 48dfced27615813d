"""A report as a PDF file: what the page shows, drawn in the reseller's brand. The page's
download, the API, the command and the schedules (which email it) all come through here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from accounts.models import Business, Reseller
from portal.tenancy import tenant_scope
from reports.pdf import report_pdf
from reports.selectors import Report, report_build


@dataclass(frozen=True)
class RenderedReport:
    pdf: bytes
    pages: int
    filename: str  # "report-<business number or account>-<from>-<to>.pdf"


def report_filename(*, business: Business | None, date_from: date, date_to: date) -> str:
    who = str(business.remote_id) if business is not None else "account"
    return f"report-{who}-{date_from.isoformat()}-{date_to.isoformat()}.pdf"


def report_rendered(*, tenant: Reseller, report: Report) -> RenderedReport:
    """A report already built (for a member, cut to what they see) as a PDF."""
    pdf, pages = report_pdf(report, tenant=tenant)
    return RenderedReport(pdf=pdf, pages=pages, filename=report_filename(
        business=report.subject.business, date_from=report.date_from, date_to=report.date_to))


def report_render(*, tenant: Reseller, business: Business | None, date_from: date,
                  date_to: date) -> RenderedReport:
    """The report of `business`'s subtree (None: the whole account) over the period (both days
    included), as a PDF, with full access: the caller decided who may have it. Raises
    ValidationError naming `from` or `to` on a bad period."""
    # Its own scope: a worker or a command may call it outside any (re-entering is harmless).
    with tenant_scope(tenant):
        report = report_build(tenant=tenant, membership=None, business=business,
                              date_from=date_from, date_to=date_to)
        return report_rendered(tenant=tenant, report=report)

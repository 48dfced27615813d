"""Reads of report schedules and sent reports: a member sees those of their subtree (a limited
member never sees the whole account's), everyone else all of the reseller's."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import Business, Membership, Reseller
from accounts.selectors import business_list
from reports.models import ReportSchedule, SentReport


def _visible(queryset: QuerySet, membership: Membership | None) -> QuerySet:
    limited_to = membership.limited_to if membership is not None else None
    if limited_to is None:
        return queryset
    return queryset.filter(business__isnull=False).filter(limited_to.subtree_q("business__"))


def schedule_list(*, tenant: Reseller, membership: Membership | None) -> QuerySet:
    return _visible(ReportSchedule.objects.filter(reseller=tenant), membership).select_related(
        "business", "reseller").order_by("-created_at", "-id")


def schedule_get(*, tenant: Reseller, membership: Membership | None, pk: int) -> ReportSchedule:
    found = schedule_list(tenant=tenant, membership=membership).filter(pk=pk).first()
    if found is None:
        raise Http404("No such report schedule.")
    return found


def sent_report_list(*, tenant: Reseller, membership: Membership | None,
                     schedule: ReportSchedule | None = None) -> QuerySet:
    """The reports sent (and being sent), newest first, without their PDFs' bytes."""
    rows = _visible(SentReport.objects.filter(reseller=tenant), membership)
    if schedule is not None:
        rows = rows.filter(schedule=schedule)
    return rows.select_related("business", "schedule").defer("pdf").order_by("-created_at",
                                                                             "-id")


def sent_report_get(*, tenant: Reseller, membership: Membership | None, pk: int,
                    with_pdf: bool = False) -> SentReport:
    rows = _visible(SentReport.objects.filter(reseller=tenant), membership).select_related(
        "business")
    if not with_pdf:
        rows = rows.defer("pdf")
    found = rows.filter(pk=pk).first()
    if found is None:
        raise Http404("No such sent report.")
    return found


def schedule_business_suggestions(*, tenant: Reseller, membership: Membership | None,
                                  limit: int = 200) -> QuerySet:
    """Clients offered in the schedule form: the groups (resellers, enterprises) the member
    sees; a location's number can still be typed."""
    return (business_list(tenant=tenant, membership=membership)
            .exclude(type=Business.Type.BUSINESS).only("remote_id", "name", "type")
            .order_by("name")[:limit])

"""Pages of the report schedules: the list, a new or changed schedule with its preview, deleting
one, "send now", and the history of the reports sent with their PDFs."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.generic import TemplateView, View

from accounts.tenant_views import TenantViewMixin
from portal.forms import add_service_errors
from portal.pagination import paginate
from reports import schedule_selectors as selectors
from reports import schedules
from reports.schedule_forms import BUSINESS_DATALIST_ID, ScheduleForm

HISTORY_PAGE_SIZE = 25
RECENT_SENDS = 10


def pdf_response(pdf: bytes, filename: str, *, inline: bool = True) -> HttpResponse:
    response = HttpResponse(bytes(pdf), content_type="application/pdf")
    disposition = "inline" if inline else "attachment"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    # The report is the client's figures: kept by no shared cache.
    response["Cache-Control"] = "private, no-store"
    return response


class _ScheduleFormMixin:
    def form(self, data=None, schedule=None, preview=False) -> ScheduleForm:
        return ScheduleForm(data, membership=self.membership, time_zone=self.tenant.time_zone,
                            schedule=schedule, preview=preview)

    def form_context(self) -> dict:
        return {"business_datalist_id": BUSINESS_DATALIST_ID, "time_zone": self.tenant.time_zone,
                "business_suggestions": selectors.schedule_business_suggestions(
                    tenant=self.tenant, membership=self.membership)}

    def saved_message(self, schedule, verb: str) -> str:
        if not schedule.active:
            return f"{verb} the schedule of {schedule.subject_name}. It is off: nothing is sent."
        preview = schedules.period_of_send(schedule, schedule.next_send_at)
        local = timezone.localtime(schedule.next_send_at, schedules.reseller_zone(self.tenant))
        return (f"{verb} the schedule of {schedule.subject_name}. Its next report goes on "
                f"{local:%a %d %b %Y at %H:%M} ({self.tenant.time_zone}) and covers "
                f"{preview[0]:%d %b %Y} to {preview[1]:%d %b %Y}.")


class ScheduleListView(TenantViewMixin, TemplateView):
    template_name = "reports/schedule_list.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["schedules"] = list(selectors.schedule_list(tenant=self.tenant,
                                                            membership=self.membership))
        context["time_zone"] = self.tenant.time_zone
        return context


class ScheduleNewView(_ScheduleFormMixin, TenantViewMixin, TemplateView):
    template_name = "reports/schedule_form.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(self.form_context(), form=form or self.form(), schedule=None)
        return context

    def post(self, request, *args, **kwargs):
        form = self.form(request.POST)
        if form.is_valid():
            try:
                schedule = schedules.schedule_create(
                    tenant=self.tenant, actor=request.user, membership=self.membership,
                    recipients=form.cleaned_data["recipients"],
                    active=form.cleaned_data["active"], **form.service_values())
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, self.saved_message(schedule, "Saved"))
                return redirect("report_schedule_list", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class ScheduleEditView(_ScheduleFormMixin, TenantViewMixin, TemplateView):
    """A schedule: managers change it; viewers read it. Its latest reports are below."""

    template_name = "reports/schedule_form.html"

    def get_schedule(self):
        return selectors.schedule_get(tenant=self.tenant, membership=self.membership,
                                      pk=self.kwargs["pk"])

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        schedule = kwargs.get("schedule") or self.get_schedule()
        context.update(self.form_context(), schedule=schedule,
                       form=form or self.form(schedule=schedule),
                       sent_reports=list(selectors.sent_report_list(
                           tenant=self.tenant, membership=self.membership,
                           schedule=schedule)[:RECENT_SENDS]))
        return context

    def post(self, request, *args, **kwargs):
        schedule = self.get_schedule()
        form = self.form(request.POST, schedule=schedule)
        if form.is_valid():
            try:
                schedule = schedules.schedule_update(
                    tenant=self.tenant, actor=request.user, membership=self.membership,
                    schedule=schedule, recipients=form.cleaned_data["recipients"],
                    active=form.cleaned_data["active"], **form.service_values())
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, self.saved_message(schedule, "Saved"))
                return redirect("report_schedule_list", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(form=form, schedule=schedule),
                                       status=400)


class SchedulePreviewView(_ScheduleFormMixin, TenantViewMixin, TemplateView):
    """POST of the schedule form's fields (the form's "Preview" button, into a new tab): the
    PDF of the period the schedule's first send would cover, up to today while it is still
    running. Nothing is saved. Posted rather than asked with GET, so the form's CSRF token
    never lands in an address."""

    template_name = "reports/schedule_preview_error.html"
    http_method_names = ["get", "post"]

    def get(self, request, *args, **kwargs):
        return redirect("report_schedule_new", slug=self.tenant.slug)

    def post(self, request, *args, **kwargs):
        form = self.form(request.POST, preview=True)
        if form.is_valid():
            try:
                values = schedules.schedule_values_check(
                    tenant=self.tenant, membership=self.membership, recipients=None,
                    **form.service_values())
                rendered = schedules.schedule_preview(tenant=self.tenant, values=values)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                return pdf_response(rendered.pdf, f"preview-{rendered.filename}")
        return self.render_to_response(self.get_context_data(form=form), status=400)


class ScheduleDeleteView(TenantViewMixin, TemplateView):
    """A confirmation page naming the schedule; POST deletes it."""

    template_name = "reports/schedule_delete.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["schedule"] = selectors.schedule_get(tenant=self.tenant,
                                                     membership=self.membership,
                                                     pk=self.kwargs["pk"])
        return context

    def post(self, request, *args, **kwargs):
        schedule = selectors.schedule_get(tenant=self.tenant, membership=self.membership,
                                          pk=self.kwargs["pk"])
        name = schedule.subject_name
        schedules.schedule_delete(tenant=self.tenant, actor=request.user, schedule=schedule)
        messages.success(request, f"Deleted the schedule of {name}: nothing more is sent by "
                                  "it. The reports it sent stay in the history.")
        return redirect("report_schedule_list", slug=self.tenant.slug)


class ScheduleSendNowView(TenantViewMixin, View):
    """POST only: the schedule's report of its last complete period, sent at once."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        schedule = selectors.schedule_get(tenant=self.tenant, membership=self.membership,
                                          pk=self.kwargs["pk"])
        row = schedules.schedule_send_now(tenant=self.tenant, actor=request.user,
                                          schedule=schedule)
        messages.success(request, f"Sending the report of {schedule.subject_name} for "
                                  f"{row.period_start:%d %b %Y} to {row.period_end:%d %b %Y} "
                                  f"to {len(row.recipients)} address"
                                  f"{'es' if len(row.recipients) != 1 else ''} now. The "
                                  "scheduled send still goes at its time.")
        return redirect("sent_report_list", slug=self.tenant.slug)


class SentReportListView(TenantViewMixin, TemplateView):
    template_name = "reports/schedule_history.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        rows = selectors.sent_report_list(tenant=self.tenant, membership=self.membership)
        context["page_obj"] = paginate(self.request, rows, HISTORY_PAGE_SIZE)
        return context


class SentReportPdfView(TenantViewMixin, View):
    """The PDF a report sent, as it was sent."""

    http_method_names = ["get", "head"]

    def get(self, request, *args, **kwargs):
        row = selectors.sent_report_get(tenant=self.tenant, membership=self.membership,
                                        pk=self.kwargs["pk"], with_pdf=True)
        if row.pdf is None or not row.filename:
            return HttpResponse("This report has no PDF yet: it is made when it is sent.",
                                status=404, content_type="text/plain; charset=utf-8")
        return pdf_response(row.pdf, row.filename)

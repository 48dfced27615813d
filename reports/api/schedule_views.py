"""The report schedules API: list, create and delete schedules; list the reports sent and
download one's PDF."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.base import IdempotentCreateMixin, TenantAPIMixin
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY, PK, READ_ERRORS, WRITE_ERRORS
from portal.api.files import FileReplyMixin
from reports import schedule_selectors as selectors
from reports import schedules
from reports.api.schedule_serializers import (
    ScheduleCreateSerializer,
    ScheduleSerializer,
    SentReportSerializer,
)

API_NAMES = {"business": "business_number"}


class ReportScheduleList(IdempotentCreateMixin, TenantAPIMixin, generics.ListAPIView):
    """Report schedules, newest first: each emails a client's report as a PDF in the agency's
    brand, weekly or monthly, at a day and hour of the agency's time zone. A member limited to
    part of the account sees and makes those of their part only. POST makes one (managers)."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "weekday": "Required for a weekly schedule.",
        "day_of_month": "Required for a monthly schedule.",
        "business_number": "A business of the account, within your part of it.",
        "recipients": "Email addresses.",
        "hour": "An hour of the day, 0 to 23.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = ScheduleSerializer

    def get_tenant_queryset(self):
        return selectors.schedule_list(tenant=self.tenant, membership=self.membership)

    @extend_schema(summary="Report schedules")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Schedule a client's report",
        description="Checked like the portal's form: a 400 names each field at fault "
                    "(`business_number` outside what you may see, `weekday` missing for a "
                    "weekly send, `day_of_month` for a monthly one, a `recipients` entry that "
                    "is not an email address). Answers the schedule with its first send "
                    "(`next_send_at` in UTC, `next_send_local` in the agency's zone).",
        request=ScheduleCreateSerializer, parameters=[IDEMPOTENCY_KEY],
        responses={201: ScheduleSerializer, **WRITE_ERRORS})
    def post(self, request, *args, **kwargs):
        return self.idempotent(request, lambda: self._create(request))

    def _create(self, request):
        body = ScheduleCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            schedule = schedules.schedule_create(tenant=self.tenant, actor=request.user,
                                                 membership=self.membership,
                                                 **body.service_values())
        except ValidationError as error:
            # The service's `business` is this body's `business_number`.
            raise ValidationError({API_NAMES.get(name, name): messages for name, messages
                                   in error.error_dict.items()}) from error
        return Response(ScheduleSerializer(schedule).data, status=status.HTTP_201_CREATED)


class ReportScheduleDetail(TenantAPIMixin, generics.RetrieveDestroyAPIView):
    """One report schedule; DELETE stops it: nothing more is sent by it, not even a report it
    queued and has not sent yet. The reports it sent stay in `sent-reports/`."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = ScheduleSerializer

    def get_object(self):
        return selectors.schedule_get(tenant=self.tenant, membership=self.membership,
                                      pk=self.kwargs["pk"])

    @extend_schema(summary="One report schedule", parameters=[PK],
                   responses={200: ScheduleSerializer, **READ_ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Delete a report schedule", parameters=[PK],
                   responses={204: None, **WRITE_ERRORS})
    def delete(self, request, *args, **kwargs):
        return super().delete(request, *args, **kwargs)

    def perform_destroy(self, instance):
        schedules.schedule_delete(tenant=self.tenant, actor=self.request.user, schedule=instance)


@extend_schema(summary="Reports sent", responses={200: SentReportSerializer(many=True),
                                                  **READ_ERRORS})
class SentReportList(TenantAPIMixin, generics.ListAPIView):
    """Reports emailed by the schedules or sent at once, newest first, with their state
    (`queued`, `sending`, `sent`, `failed` after the last retry, `cancelled` when their
    schedule was turned off or deleted first), attempts and last error in words, and the
    address of their PDF."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = SentReportSerializer

    def get_tenant_queryset(self):
        return selectors.sent_report_list(tenant=self.tenant, membership=self.membership)


class SentReportPdf(FileReplyMixin, TenantAPIMixin, APIView):
    """The PDF a report sent, as it was sent."""

    api_description = __doc__  # written for API users (portal.api.schema)

    @extend_schema(summary="Download a sent report's PDF", parameters=[PK],
                   responses={(200, "application/pdf"): OpenApiResponse(
                       OpenApiTypes.BINARY, description="The PDF."), **READ_ERRORS,
                       404: ERRORS[404]})
    def get(self, request, *args, **kwargs):
        row = selectors.sent_report_get(tenant=self.tenant, membership=self.membership,
                                        pk=self.kwargs["pk"], with_pdf=True)
        if row.pdf is None or not row.filename:
            raise Http404("This report has no PDF yet: it is made when it is sent.")
        return self.file_reply(bytes(row.pdf), "application/pdf", row.filename)

"""Serializers of the report schedules API."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone
from rest_framework import serializers

from portal.api.serializers import StrictSerializer
from reports.models import MAX_RECIPIENTS, Frequency, ReportSchedule, SentReport, Weekday
from reports.schedules import reseller_zone

MAX_BIGINT = 2**63 - 1
WEEKDAY_NAMES = [day.name.lower() for day in Weekday]  # "monday" ... "sunday"


class ScheduleSerializer(serializers.ModelSerializer):
    business_number = serializers.SerializerMethodField(
        help_text="The client whose subtree is reported; null: the whole account.")
    business_name = serializers.SerializerMethodField()
    weekday = serializers.SerializerMethodField(
        help_text="The day of a weekly send (monday to sunday); null for a monthly one.")
    time_zone = serializers.CharField(source="reseller.time_zone", read_only=True,
                                      help_text="The agency's zone, in which the day and hour "
                                                "are.")
    next_send_local = serializers.SerializerMethodField(
        help_text="The next send in the agency's zone (ISO 8601 with its offset); null "
                  "when off.")

    class Meta:
        model = ReportSchedule
        fields = ["id", "business_number", "business_name", "frequency", "weekday",
                  "day_of_month", "hour", "time_zone", "recipients", "active", "next_send_at",
                  "next_send_local", "created_at"]
        read_only_fields = fields

    def get_business_number(self, schedule) -> int | None:
        return schedule.business.remote_id if schedule.business_id else None

    def get_business_name(self, schedule) -> str:
        return schedule.subject_name

    def get_weekday(self, schedule) -> str | None:
        return WEEKDAY_NAMES[schedule.weekday] if schedule.weekday is not None else None

    def get_next_send_local(self, schedule) -> str | None:
        if schedule.next_send_at is None:
            return None
        return timezone.localtime(schedule.next_send_at,
                                  reseller_zone(schedule.reseller)).isoformat()


class ScheduleCreateSerializer(StrictSerializer):
    api_description = ("A schedule of a client's report: `frequency` weekly (with `weekday`; "
                       "the Monday to Sunday before the send) or monthly (with `day_of_month`, "
                       "1 to 28; the calendar month before it), at `hour` in the agency's time "
                       "zone. A field this operation does not take is refused (400), named in "
                       "`fields`.")
    business_number = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_BIGINT,
        help_text="The client (an enterprise, a sub-reseller or a location) whose subtree is "
                  "reported; null or left out: the whole account (members without a limit).")
    frequency = serializers.ChoiceField(choices=Frequency.choices)
    weekday = serializers.ChoiceField(choices=WEEKDAY_NAMES, required=False, allow_null=True,
                                      help_text="The day of a weekly send.")
    day_of_month = serializers.IntegerField(required=False, allow_null=True, min_value=1,
                                            max_value=28,
                                            help_text="The day of a monthly send, 1 to 28.")
    hour = serializers.IntegerField(min_value=0, max_value=23,
                                    help_text="The hour of the send, in the agency's zone.")
    recipients = serializers.ListField(
        child=serializers.EmailField(max_length=254), min_length=1,
        max_length=MAX_RECIPIENTS, help_text="The email addresses it goes to.")
    active = serializers.BooleanField(required=False, default=True,
                                      help_text="false: stored, but nothing is sent.")

    def service_values(self) -> dict:
        data = self.validated_data
        weekday = data.get("weekday")
        return {"business_number": data.get("business_number"), "frequency": data["frequency"],
                "weekday": WEEKDAY_NAMES.index(weekday) if weekday else None,
                "day_of_month": data.get("day_of_month"), "hour": data["hour"],
                "recipients": data["recipients"], "active": data["active"]}


class SentReportSerializer(serializers.ModelSerializer):
    schedule = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True,
                                                  help_text="The schedule that sent it; null "
                                                            "once that was deleted.")
    business_number = serializers.SerializerMethodField(
        help_text="The client reported; null: the whole account.")
    business_name = serializers.SerializerMethodField()
    pdf = serializers.SerializerMethodField(help_text="Where to download its PDF; null until "
                                                      "it is made.")

    class Meta:
        model = SentReport
        fields = ["id", "schedule", "trigger", "business_number", "business_name",
                  "period_start", "period_end", "recipients", "state", "attempts",
                  "last_error", "filename", "pages", "pdf", "created_at", "sent_at"]
        read_only_fields = fields

    def get_business_number(self, row) -> int | None:
        return row.business.remote_id if row.business_id else None

    def get_business_name(self, row) -> str:
        return row.subject_name

    def get_pdf(self, row) -> str | None:
        tenant = self.context.get("tenant")
        if not row.has_pdf or tenant is None:
            return None
        path = reverse("api_sent_report_pdf", args=[tenant.slug, row.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

"""The form of a report schedule. No tenant field: the business is typed as its number and
looked up, by the service, among those the member may see."""

from __future__ import annotations

import re

from django import forms

from accounts.models import Membership
from reports.models import MAX_RECIPIENTS, Frequency, ReportSchedule, Weekday

MAX_BIGINT = 2**63 - 1
BUSINESS_DATALIST_ID = "report-schedule-clients"
HOURS = [(hour, f"{hour:02d}:00") for hour in range(24)]


def _optional_int(value):
    return int(value) if value not in (None, "") else None


class ScheduleForm(forms.Form):
    business = forms.IntegerField(
        label="Client (business number)", required=False, min_value=1, max_value=MAX_BIGINT,
        widget=forms.NumberInput(attrs={"list": BUSINESS_DATALIST_ID}),
        help_text="An enterprise, a sub-reseller or a location: the report covers it and "
                  "everything under it. Leave empty for the whole account.")
    frequency = forms.ChoiceField(
        label="Frequency", choices=Frequency.choices, initial=Frequency.MONTHLY,
        help_text="Monthly: the calendar month before the send. Weekly: the Monday to Sunday "
                  "before it.")
    day_of_month = forms.IntegerField(
        label="Day of the month (monthly)", required=False, min_value=1, max_value=28,
        initial=1, help_text="1 to 28: every month has it.")
    weekday = forms.TypedChoiceField(
        label="Day of the week (weekly)", required=False, coerce=int, empty_value=None,
        choices=[("", "—"), *Weekday.choices], initial=Weekday.MONDAY)
    hour = forms.TypedChoiceField(label="Hour", choices=HOURS, coerce=int, initial=8)
    recipients = forms.CharField(
        label="Send to", required=True, max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off", "spellcheck": "false"}),
        help_text=f"Email addresses, one a line or separated by commas: the agency's staff "
                  f"and the client's own contacts (at most {MAX_RECIPIENTS}).")
    active = forms.BooleanField(label="On", required=False, initial=True,
                                help_text="Off: nothing is sent until it is turned on again.")

    def __init__(self, *args, membership: Membership | None, time_zone: str,
                 schedule: ReportSchedule | None = None, preview: bool = False, **kwargs):
        if schedule is not None:
            kwargs.setdefault("initial", {
                "business": schedule.business.remote_id if schedule.business_id else None,
                "frequency": schedule.frequency, "day_of_month": schedule.day_of_month,
                "weekday": schedule.weekday, "hour": schedule.hour,
                "recipients": "\n".join(schedule.recipients), "active": schedule.active})
        super().__init__(*args, **kwargs)
        self.fields["hour"].help_text = f"In the agency's time zone, {time_zone}."
        limited_to = membership.limited_to if membership is not None else None
        if limited_to is not None:
            # A limit is never widened from inside it: no whole-account report.
            field = self.fields["business"]
            field.required = True
            field.help_text = (f"{limited_to.name} ({limited_to.remote_id}) or a business "
                               "under it: the report covers it and everything under it.")
            field.error_messages["required"] = (
                f"Choose {limited_to.name} ({limited_to.remote_id}) or a business under it.")
            self.initial.setdefault("business", limited_to.remote_id)
        if preview:
            # A preview is of the report, not of its sending: nobody is written to.
            self.fields["recipients"].required = False

    def clean_recipients(self) -> list[str]:
        text = self.cleaned_data.get("recipients") or ""
        return [part for part in re.split(r"[\s,;]+", text) if part]

    def service_values(self) -> dict:
        data = self.cleaned_data
        return {"business_number": data.get("business"), "frequency": data["frequency"],
                "weekday": data.get("weekday"),
                "day_of_month": _optional_int(data.get("day_of_month")),
                "hour": data["hour"]}

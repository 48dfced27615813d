"""The report's choice: which client and which period (the page and its PDF link read the
same parameters: `business`, `period`, `from`, `to`)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from accounts.filtersets import BIGINT_MAX
from accounts.models import Membership, Reseller
from reports.selectors import PRESETS, period_check, preset_period, report_business_get

CLIENT_DATALIST_ID = "report-clients"
DATE_INPUT = ["%Y-%m-%d"]


class ReportForm(forms.Form):
    """The client (empty: the whole account, or a limited member's subtree) and the period:
    a preset, or custom days. Its cleaned data carry the business found and the period's
    days; a business outside a limited member's subtree raises Http404."""

    business = forms.IntegerField(
        required=False, label="Client", min_value=1, max_value=BIGINT_MAX,
        help_text="Business number of a reseller, an enterprise or a location; empty for "
                  "everything you see.",
        widget=forms.NumberInput(attrs={"list": CLIENT_DATALIST_ID, "inputmode": "numeric",
                                        "aria-describedby": "id_business_help",
                                        "placeholder": "Everything"}))
    period = forms.ChoiceField(choices=PRESETS, required=False, label="Period")

    def __init__(self, *args, tenant: Reseller, membership: Membership | None, **kwargs):
        super().__init__(*args, **kwargs)
        self.tenant, self.membership = tenant, membership
        # `from` is a Python keyword: these two are added by name.
        self.fields["from"] = forms.DateField(
            required=False, label="From", input_formats=DATE_INPUT,
            widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
        self.fields["to"] = forms.DateField(
            required=False, label="To", input_formats=DATE_INPUT,
            widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        preset = data.get("period") or ""
        given = data.get("from") is not None or data.get("to") is not None
        if preset == "custom" or (not preset and given):
            data["period"] = "custom"
            date_from, date_to = data.get("from"), data.get("to")
        else:
            data["period"] = preset or PRESETS[0][0]
            date_from, date_to = preset_period(data["period"])
        try:
            data["from"], data["to"] = period_check(date_from=date_from, date_to=date_to)
        except ValidationError as exc:
            for name, errors in exc.message_dict.items():
                self.add_error(name, errors)
            return data
        number = data.get("business")
        data["client"] = None
        if number is not None:
            try:
                data["client"] = report_business_get(tenant=self.tenant,
                                                     membership=self.membership, number=number)
            except ValidationError as exc:
                self.add_error("business", exc.message_dict["business"])
        return data

    def query(self) -> dict:
        """The PDF link's parameters for what was chosen."""
        data = self.cleaned_data
        query = {"from": data["from"].isoformat(), "to": data["to"].isoformat()}
        if data.get("client") is not None:
            query["business"] = data["client"].remote_id
        return query

"""The late-sites list's parameters (the page and the API read the same) and the form of one
directory's delay."""

from __future__ import annotations

from django import forms

from accounts.filtersets import BIGINT_MAX
from history.ageing import DEFAULT_SORT, SORT_CHOICES, STATUS_PARAMS
from history.delays import MAX_DELAY_DAYS, Delay

STATUS_CHOICES = [(param, status) for param, status in STATUS_PARAMS.items()]


class LateSitesQueryForm(forms.Form):
    """Filters and sorting of the late sites; every one narrows what the member may see."""

    q = forms.CharField(
        required=False, label="Location", max_length=200,
        help_text="Words of the location's name, city, state, postal code or number.",
        widget=forms.TextInput(attrs={"type": "search", "aria-describedby": "id_q_help",
                                      "placeholder": "Name, city, number"}))
    site = forms.TypedChoiceField(required=False, label="Site", coerce=int, empty_value=None)
    status = forms.ChoiceField(required=False, label="Status",
                               choices=[("", "Any status"), *STATUS_CHOICES])
    within = forms.IntegerField(
        required=False, label="Within", min_value=1, max_value=BIGINT_MAX,
        help_text="Business number of a reseller or enterprise: only the locations under it.")
    sort = forms.ChoiceField(required=False, label="Sort by", choices=SORT_CHOICES)

    def __init__(self, *args, delays: list[Delay], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["site"].choices = [("", "Any site"),
                                       *((d.site_id, d.site_name) for d in delays)]

    def selector_kwargs(self) -> dict:
        data = self.cleaned_data
        return {"site_id": data.get("site"), "status": data.get("status") or None,
                "within": data.get("within"), "search": data.get("q") or "",
                "sort": data.get("sort") or DEFAULT_SORT}


class DirectoryDelayForm(forms.Form):
    """The reseller's own delay of one site; empty days give the site back its learned or
    default figure."""

    site_id = forms.IntegerField(min_value=1, max_value=BIGINT_MAX, widget=forms.HiddenInput)
    days = forms.IntegerField(required=False, min_value=1, max_value=MAX_DELAY_DAYS,
                              label="Your delay (days)")
    in_progress_days = forms.IntegerField(required=False, min_value=1,
                                          max_value=MAX_DELAY_DAYS,
                                          label="From In Progress (days)")

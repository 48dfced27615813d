"""Forms of the review pages: filters (read from the query string) and adding a survey."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from reviews_app.labels import REVIEW_SOURCE_LABELS, review_source_label
from reviews_app.selectors import COMPETITOR_SORTS

REVIEW_SOURCES = tuple(REVIEW_SOURCE_LABELS.items())


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%d")


class DateRangeMixin:
    """`date_from` / `date_to` fields; the end may not come before the start."""

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("date_from"), cleaned.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The end date must be on or after the start date.")
        return cleaned


class ReviewCountForm(DateRangeMixin, forms.Form):
    date_from = forms.DateField(label="From", widget=DateInput())
    date_to = forms.DateField(label="To", widget=DateInput())
    sources = forms.MultipleChoiceField(
        label="Sources", required=False, choices=REVIEW_SOURCES,
        widget=forms.CheckboxSelectMultiple, help_text="None checked means all sources.")

    @staticmethod
    def default_range() -> tuple[dt.date, dt.date]:
        today = timezone.localdate()
        try:
            start = today.replace(year=today.year - 1) + dt.timedelta(days=1)
        except ValueError:  # 29 February
            start = today - dt.timedelta(days=365)
        return start, today

    @classmethod
    def from_query(cls, query) -> ReviewCountForm:
        """Bound to the query string; the last 12 months and all sources when it is empty."""
        start, end = cls.default_range()
        data = query.copy()
        data.setdefault("date_from", start.isoformat())
        data.setdefault("date_to", end.isoformat())
        return cls(data)


# Every sort the selector whitelists, and only those.
SORT_LABELS = {
    "brand": "Brand (A–Z)", "-brand": "Brand (Z–A)",
    "-rating": "Rating (highest first)", "rating": "Rating (lowest first)",
    "-reviews": "Review count (most first)", "reviews": "Review count (fewest first)",
}
if set(SORT_LABELS) != set(COMPETITOR_SORTS):  # pragma: no cover - a programming error
    raise ImportError("SORT_LABELS and COMPETITOR_SORTS name different sorts.")


class CompetitorFilterForm(forms.Form):
    brand = forms.ChoiceField(label="Brand", required=False)
    source = forms.ChoiceField(label="Source", required=False)
    q = forms.CharField(label="Competitor", required=False, max_length=200,
                        widget=forms.TextInput(attrs={"type": "search",
                                                      "placeholder": "Name or address"}))
    sort = forms.ChoiceField(label="Sort by", required=False,
                             choices=[(key, label) for key, label in SORT_LABELS.items()])

    def __init__(self, *args, brands: list[str], sources: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["brand"].choices = [("", "All brands"), *((b, b) for b in brands)]
        self.fields["source"].choices = [("", "All sources"),
                                         *((s, review_source_label(s)) for s in sources)]

    def values(self) -> dict[str, str]:
        """The valid filters; invalid ones are dropped (and shown on their field)."""
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        return {name: cleaned.get(name) or "" for name in ("brand", "source", "q", "sort")}


class RankingForm(forms.Form):
    business = forms.TypedChoiceField(
        label="Ranking of", coerce=int, required=False,
        help_text="An enterprise against its own competitors, or the whole account against "
                  "every competitor of its brands.")
    metric = forms.ChoiceField(label="Compare", required=False, choices=[
        ("rating", "Average rating"), ("positive", "Share of positive mentions (%)"),
        ("count", "Number of reviews")])

    def __init__(self, *args, enterprises, account_number: int, account_name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.account_number = account_number
        # An enterprise by default: the account mixes every trade of the agency together.
        self.default = enterprises[0].remote_id if enterprises else account_number
        self.fields["business"].choices = [
            *((e.remote_id, e.name) for e in enterprises),
            (account_number, f"{account_name} (whole account, all brands together)")]
        if not self.data.get("business"):
            # The select shows what is ranked, and a link to the page keeps it.
            self.data = self.data.copy()
            self.data["business"] = str(self.default)

    def chosen(self) -> tuple[int, str]:
        """The business to rank (the default when none or an unknown one is asked) and the
        measure; a value that is not valid shows its error on its field."""
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        business = cleaned.get("business")
        return (self.default if business in (None, "") else business,
                cleaned.get("metric") or "rating")


class SurveyFilterForm(DateRangeMixin, forms.Form):
    survey = forms.TypedChoiceField(label="Survey", coerce=int, required=False)
    date_from = forms.DateField(label="Answered from", required=False, widget=DateInput())
    date_to = forms.DateField(label="to", required=False, widget=DateInput())

    def __init__(self, *args, surveys, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["survey"].choices = [
            (s.remote_id, f"{s} ({s.remote_id})"
                          f"{' – unknown to the provider' if s.unknown_since else ''}")
            for s in surveys]


class SurveyAddForm(forms.Form):
    remote_id = forms.IntegerField(label="Survey id", min_value=1, max_value=2**63 - 1,
                                   help_text="The provider's id of the survey, checked with the "
                                             "provider; its responses are mirrored from the "
                                             "next sync.")
    name = forms.CharField(label="Name", required=False, max_length=255,
                           help_text="Optional; the provider's name of the survey when left "
                                     "empty.")

    def __init__(self, *args, existing: set[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.existing = existing

    def clean_remote_id(self) -> int:
        remote_id = self.cleaned_data["remote_id"]
        if remote_id in self.existing:
            raise ValidationError("This survey is already in the list.")
        return remote_id

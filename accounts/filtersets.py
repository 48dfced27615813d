"""Filters of the businesses list: one FilterSet behind the UI list, the CSV export and the API.

The FilterSet never widens what it is given: the selector hands it the businesses the member may
see (the tenant, and their subtree when limited), and every filter only narrows that.
"""

from __future__ import annotations

import re

import django_filters
from django import forms
from django.db.models import F, Q, Value
from django.db.models.functions import Upper
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from accounts.models import Business
from accounts.triage import TRIAGE_CHOICES, TRIAGE_PARAMS, triage_q, triage_score

# The provider's location statuses (interface.md, location listing status report).
LISTING_STATUS_CHOICES = [
    ("Published", "Published"),
    ("Scan State", "Scan state"),
    ("Disabled", "Disabled"),
    ("none", "No status report yet"),
]
REMOVED_CHOICES = [
    ("include", "Current and removed"),
    ("only", "Removed only"),
]
YES_NO = [("true", "Yes"), ("false", "No")]


BIGINT_MAX = 2**63 - 1
# Words of a search beyond these add little but cost one more comparison per business each.
SEARCH_MAX_WORDS = 8
# What separates the words of a search: spaces and the punctuation typed between parts of an
# address ("Austin, TX", "Pizza / Austin", "#1042"); what is left at either end of a word
# ("Austin." or "-") is dropped too, so punctuation never has to match.
_WORD_SEPARATORS = re.compile(r"[\s,;:/|()\[\]{}#\"]+")
_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")


def search_words(value: str) -> list[str]:
    """The distinct words of a search, in the order typed, without punctuation at their ends."""
    words: dict[str, str] = {}
    for part in _WORD_SEPARATORS.split(value or ""):
        word = _EDGE_PUNCTUATION.sub("", part)
        if word:
            words.setdefault(word.upper(), word)
    return list(words.values())[:SEARCH_MAX_WORDS]


# Sort parameters that are expressions over the business's status report, not a column.
SORT_EXPRESSIONS = {"triage": lambda: triage_score(prefix="status_report__")}


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (business numbers are integers; no decimals, no exponents), described in
    the API's schema as the integer it reads, with its bounds."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        schema = {"type": "integer", "format": "int64"}
        for bound, name in (("minimum", "min_value"), ("maximum", "max_value")):
            if kwargs.get(name) is not None:
                schema[bound] = kwargs[name]
        extend_schema_field(schema)(self)


@extend_schema_field(OpenApiTypes.BOOL)
class YesNoFilter(django_filters.TypedChoiceFilter):
    """`true` or `false`, exactly, as the schema's boolean says: django-filter's BooleanFilter
    reads any other value as "either"; this one refuses it (400 naming the parameter)."""

    def __init__(self, **kwargs):
        super().__init__(choices=YES_NO, coerce=lambda value: value == "true", **kwargs)


class NullsLastOrderingFilter(django_filters.OrderingFilter):
    """Ordering from a whitelist, missing values last either way, the primary key breaking ties
    so that pages are stable."""

    def filter(self, qs, value):
        params = [param for param in (value or []) if param]
        if not params:
            return qs
        ordering = []
        for param in params:
            descending = param.startswith("-")
            field = self.param_map[param.lstrip("-")]
            expression = SORT_EXPRESSIONS[field]() if field in SORT_EXPRESSIONS else F(field)
            ordering.append(expression.desc(nulls_last=True) if descending
                            else expression.asc(nulls_last=True))
        return qs.order_by(*ordering, "pk")


class BusinessFilterSet(django_filters.FilterSet):
    """Search, filters and sorting of businesses. Build it with the queryset of businesses the
    member may see, removed ones included (`business_list_visible`); without the `removed`
    filter only current businesses are listed."""

    q = django_filters.CharFilter(
        method="filter_search", label="Search",
        help_text="Words of the name, alias, city, state, postal code or business number, in "
                  "any order: each word must match.",
        widget=forms.TextInput(attrs={"type": "search", "aria-describedby": "id_q_help",
                                      "placeholder": "Name, city, state, postal code, number"}))
    # Plain exact matches, so that the API accepts any type (custom hierarchy types exist) and
    # any country; the UI turns them into drop-downs of the values present (see __init__).
    type = django_filters.CharFilter(field_name="type", label="Type")
    status = django_filters.ChoiceFilter(choices=Business.Status.choices, label="Status",
                                         empty_label="Any status")
    city = django_filters.CharFilter(field_name="city", lookup_expr="iexact", label="City")
    country = django_filters.CharFilter(method="filter_country", label="Country")
    listing_status = django_filters.ChoiceFilter(
        choices=LISTING_STATUS_CHOICES, method="filter_listing_status", label="Listing status",
        empty_label="Any listing status")
    needs_action = django_filters.TypedChoiceFilter(
        choices=[("", "Either"), *YES_NO], coerce=lambda v: v == "true",
        method="filter_needs_action", label="Needs action")
    triage = django_filters.ChoiceFilter(
        choices=TRIAGE_CHOICES, method="filter_triage", label="Work to do",
        empty_label="Any work")
    within = IntegerFilter(
        method="filter_within", label="Within", min_value=1, max_value=BIGINT_MAX,
        help_text="Business number of a reseller or enterprise: only what is under it.")
    removed = django_filters.ChoiceFilter(choices=REMOVED_CHOICES, method="filter_removed",
                                          label="Removed",
                                          empty_label="Hide removed")
    sort = NullsLastOrderingFilter(
        label="Sort by",
        empty_label="Name",
        fields=(
            ("name", "name"),
            ("city", "city"),
            ("country_code", "country"),
            ("type", "type"),
            ("status", "status"),
            ("remote_id", "id"),
            ("status_report__location_status", "listing_status"),
            ("synced_percent", "synced"),
            ("status_report__need_updates_count", "need_updates"),
            ("triage", "triage"),
        ),
        field_labels={
            "remote_id": "Business number",
            "country_code": "Country",
            "status_report__location_status": "Listing status",
            "synced_percent": "Synced %",
            "status_report__need_updates_count": "Sites needing updates",
            # Descending: not published first, then many sites to fix, a few, inactive.
            "triage": "Work to do",
        },
    )

    class Meta:
        model = Business
        fields: list[str] = []

    def __init__(self, data=None, queryset=None, *, type_choices=None, country_choices=None,
                 **kwargs):
        super().__init__(data=data, queryset=queryset, **kwargs)
        labels = dict(Business.Type.choices)
        if type_choices is not None:
            self.filters["type"].extra["widget"] = forms.Select(choices=[
                ("", "Any type"), *((t, labels.get(t, t)) for t in type_choices)])
        if country_choices is not None:
            self.filters["country"].extra["widget"] = forms.Select(choices=[
                ("", "Any country"), *((c, c) for c in country_choices)])

    # -- filters --------------------------------------------------------------------------------

    def filter_search(self, queryset, name, value):
        # Every word is somewhere in the name, alias, city, state or postal code (or is the
        # business number), whatever the case and the order: the database upper-cases each word
        # as it upper-cased `search_text`, whose trigram index answers each of them.
        match = Q()
        for word in search_words(value):
            found = Q(search_text__contains=Upper(Value(word)))
            if word.isascii() and word.isdigit() and int(word) <= BIGINT_MAX:
                found |= Q(remote_id=int(word))
            match &= found
        return queryset.filter(match) if match else queryset

    def filter_country(self, queryset, name, value):
        return queryset.filter(country_code=value.strip().upper())

    def filter_listing_status(self, queryset, name, value):
        if value == "none":
            return queryset.filter(status_report__isnull=True)
        return queryset.filter(status_report__location_status=value)

    @extend_schema_field(OpenApiTypes.BOOL)
    def filter_needs_action(self, queryset, name, value):
        # The business's copy of its report's flag (False without a report), which the list's
        # indexes carry.
        return queryset.filter(needs_action=value)

    def filter_triage(self, queryset, name, value):
        # The business's own flag first, which its indexes carry; the report says how much.
        return queryset.filter(Q(needs_action=True)
                               & triage_q(TRIAGE_PARAMS[value], prefix="status_report__"))

    def filter_within(self, queryset, name, value):
        """Strictly under the business numbered `value`, looked up among what the member may
        see, so naming a business outside their subtree finds nothing."""
        path = (self.queryset.filter(remote_id=value)
                .values_list("tree_path", flat=True).first())
        if path is None:
            return queryset.none()
        return queryset.filter(tree_path__startswith=path).exclude(tree_path=path)

    def filter_removed(self, queryset, name, value):
        # "include" keeps everything; the default (no value) is handled in filter_queryset.
        if value == "only":
            return queryset.filter(removed_at__isnull=False)
        return queryset

    def filter_queryset(self, queryset):
        if not self.form.cleaned_data.get("removed"):
            queryset = queryset.filter(removed_at__isnull=True)
        queryset = super().filter_queryset(queryset)
        if not self.form.cleaned_data.get("sort"):
            queryset = queryset.order_by("name", "pk")
        return queryset

    @property
    def searching(self) -> bool:
        """Whether a valid search term narrows the list (it is matched inside every name, so
        no index gives its first page without checking every business)."""
        return bool(getattr(self.form, "cleaned_data", {}).get("q", "").strip())

    @property
    def active_filters(self) -> bool:
        """Whether any parameter but sorting and the page was given (to offer "Clear")."""
        return any(self.data.get(name) for name in self.filters if name != "sort")

"""Serializers of the reviews API: query parameters (validated with the portal's forms where
there is one), mirrored rows and the add-survey body."""

from __future__ import annotations

from django import forms
from django.http import QueryDict
from rest_framework import serializers

from portal.api.serializers import StrictSerializer, form_errors
from reviews_app.forms import REVIEW_SOURCES, DateRangeMixin, ReviewCountForm, SurveyAddForm
from reviews_app.models import CompetitiveRanking, CompetitorMetric, Survey, SurveyResponse
from reviews_app.selectors import COMPETITOR_SORTS, DEFAULT_COMPETITOR_SORT


class QuerySerializer(serializers.Serializer):
    """Query parameters that refuse one they do not know, naming it (a misspelt filter is an
    error to fix, not a filter silently left out); `renamed` points old names to new ones."""

    renamed: dict[str, str] = {}
    # DRF's own parameter choosing the reply's format.
    always_allowed = frozenset({"format"})

    def to_internal_value(self, data):
        unknown = sorted(set(data) - set(self.fields) - self.always_allowed)
        if unknown:
            raise serializers.ValidationError({
                name: [f"Unknown parameter: this operation takes {self.renamed[name]} instead."
                       if name in self.renamed
                       else "Unknown parameter: this operation does not take it."]
                for name in unknown})
        return super().to_internal_value(data)


class ReviewCountQuerySerializer(QuerySerializer):
    """`date_from` and `date_to` default to the last twelve months; no `sources` means all of
    them. The reply names them the same way."""

    renamed = {"from": "date_from", "to": "date_to"}

    date_from = serializers.DateField(required=False,
                                      help_text="First day, YYYY-MM-DD (default: a year ago).")
    date_to = serializers.DateField(required=False,
                                    help_text="Last day, YYYY-MM-DD (default: today).")
    sources = serializers.ListField(
        child=serializers.ChoiceField(choices=REVIEW_SOURCES), required=False,
        help_text="Repeat for several sources: "
                  + ", ".join(f"`{alias}` ({label})" for alias, label in REVIEW_SOURCES)
                  + ". None means all.")

    def validate(self, attrs):
        data = QueryDict(mutable=True)
        for name in ("date_from", "date_to"):
            if attrs.get(name):
                data[name] = attrs[name].isoformat()
        data.setlist("sources", attrs.get("sources") or [])
        form = ReviewCountForm.from_query(data)
        if not form.is_valid():
            raise serializers.ValidationError(form_errors(form))
        return form.cleaned_data


class ReviewCountSerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    date_from = serializers.DateField(help_text="First day counted (the query's `date_from`).")
    date_to = serializers.DateField(help_text="Last day counted (the query's `date_to`).")
    sources = serializers.ListField(child=serializers.CharField(),
                                    help_text="Empty means all sources.")
    counts = serializers.DictField(child=serializers.IntegerField(),
                                   help_text='Rating "0" (unrated) to "5" -> number of reviews.')
    total = serializers.IntegerField()
    average = serializers.FloatField(allow_null=True,
                                     help_text="Over the rated reviews only (1 to 5 stars).")
    unrated = serializers.IntegerField(help_text="Reviews without a rating (rating 0).")
    fetched_at = serializers.DateTimeField()
    from_cache = serializers.BooleanField()


class CompetitorMetricQuerySerializer(serializers.Serializer):
    brand = serializers.CharField(required=False, max_length=255,
                                  help_text="Exactly this competitor brand.")
    source = serializers.CharField(required=False, max_length=64)
    search = serializers.CharField(required=False, max_length=200,
                                   help_text="Part of the competitor's name, address or brand.")
    ordering = serializers.ChoiceField(choices=sorted(COMPETITOR_SORTS), required=False,
                                       default=DEFAULT_COMPETITOR_SORT)


class CompetitorMetricSerializer(serializers.ModelSerializer):
    class Meta:
        model = CompetitorMetric
        fields = ["competitor_location", "competitor_brand", "source", "overall_rating",
                  "review_count", "business_locations", "last_seen_at"]
        read_only_fields = fields


class CompetitiveRankingQuerySerializer(QuerySerializer):
    business_number = serializers.IntegerField(
        required=False, min_value=1,
        help_text="The enterprise to rank against its own competitors (live from the provider, "
                  "cached for a few minutes), or the account number for the whole account, "
                  "every brand together (as of the last sync; the default).")


class CompetitiveRankingSerializer(serializers.ModelSerializer):
    account_number = serializers.SerializerMethodField(help_text="The reseller's account.")
    business_number = serializers.IntegerField(
        source="remote_id", read_only=True,
        help_text="The business ranked: an enterprise, or the account itself.")
    name = serializers.CharField(
        read_only=True, help_text="The business ranked, as the portal names it (the "
                                  "reseller's own name for the account).")
    last_seen_at = serializers.DateTimeField(
        read_only=True, allow_null=True,
        help_text="When the provider answered: the last sync for the account, the request (or "
                  "a few minutes before) for an enterprise.")

    class Meta:
        model = CompetitiveRanking
        fields = ["account_number", "business_number", "name", "count", "positive_count",
                  "neutral_count", "negative_count", "rating", "competitors", "last_seen_at"]
        read_only_fields = fields

    def get_account_number(self, obj) -> int:
        return self.context["tenant"].account_number


class SurveySerializer(serializers.ModelSerializer):
    survey_id = serializers.IntegerField(source="remote_id", read_only=True)

    class Meta:
        model = Survey
        fields = ["survey_id", "name", "created_at", "unknown_since"]
        read_only_fields = fields


class SurveyAddSerializer(StrictSerializer):
    """Follow a survey by the provider's id, once the provider confirms it is the account's;
    its responses are mirrored from the next sync."""

    survey_id = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    name = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")

    def validate(self, attrs):
        form = SurveyAddForm(data={"remote_id": attrs["survey_id"], "name": attrs["name"]},
                             existing=self.context["existing"])
        if not form.is_valid():
            errors = form_errors(form)
            if "remote_id" in errors:
                errors["survey_id"] = errors.pop("remote_id")
            raise serializers.ValidationError(errors)
        return form.cleaned_data


class DateRangeForm(DateRangeMixin, forms.Form):
    date_from = forms.DateField(required=False)
    date_to = forms.DateField(required=False)


class SurveyResponseQuerySerializer(serializers.Serializer):
    date_from = serializers.DateField(required=False, help_text="Answered on or after.")
    date_to = serializers.DateField(required=False, help_text="Answered on or before.")

    def validate(self, attrs):
        form = DateRangeForm(data={k: v.isoformat() for k, v in attrs.items()})
        if not form.is_valid():
            raise serializers.ValidationError(form_errors(form))
        return attrs


class SurveyResponseSerializer(serializers.ModelSerializer):
    response_id = serializers.IntegerField(source="remote_id", read_only=True)
    survey_id = serializers.IntegerField(source="survey.remote_id", read_only=True)

    class Meta:
        model = SurveyResponse
        fields = ["response_id", "survey_id", "customer_id", "customer_name", "location_name",
                  "request_date", "response_date", "completed", "ticketed", "question_count",
                  "overall_score", "locale", "last_seen_at"]
        read_only_fields = fields


class SurveyResponseDetailSerializer(SurveyResponseSerializer):
    survey_name = serializers.CharField(source="survey.__str__", read_only=True)
    extra_params = serializers.SerializerMethodField()

    class Meta(SurveyResponseSerializer.Meta):
        fields = [*SurveyResponseSerializer.Meta.fields, "survey_name", "answers", "ticket_ids",
                  "extra_params"]
        read_only_fields = fields

    def get_extra_params(self, obj) -> dict[str, str]:
        raw = obj.raw or {}
        return {**(raw.get("customParam") or {}), **(raw.get("extraParams") or {})}

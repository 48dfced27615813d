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


class ReviewCountQuerySerializer(serializers.Serializer):
    """`from` and `to` default to the last twelve months; no `sources` means all of them."""

    from_ = serializers.DateField(required=False, help_text="First day (default: a year ago).")
    to = serializers.DateField(required=False, help_text="Last day (default: today).")
    sources = serializers.ListField(child=serializers.ChoiceField(choices=REVIEW_SOURCES),
                                    required=False, help_text="Repeat for several sources.")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields

    def validate(self, attrs):
        query = self.initial_data
        data = QueryDict(mutable=True)
        for api_name, form_name in (("from", "date_from"), ("to", "date_to")):
            if query.get(api_name):
                data[form_name] = query.get(api_name)
        data.setlist("sources", query.getlist("sources") if hasattr(query, "getlist")
                     else list(query.get("sources") or []))
        form = ReviewCountForm.from_query(data)
        if not form.is_valid():
            renamed = {"date_from": "from", "date_to": "to"}
            raise serializers.ValidationError(
                {renamed.get(k, k): v for k, v in form_errors(form).items()})
        return form.cleaned_data


class ReviewCountSerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    date_from = serializers.DateField(source="from_date")
    date_to = serializers.DateField(source="to_date")
    sources = serializers.ListField(child=serializers.CharField(),
                                    help_text="Empty means all sources.")
    counts = serializers.DictField(child=serializers.IntegerField(),
                                   help_text='Rating "0" (unrated) to "5" -> number of reviews.')
    total = serializers.IntegerField()
    average = serializers.FloatField(allow_null=True)
    unrated = serializers.IntegerField()
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


class CompetitiveRankingSerializer(serializers.ModelSerializer):
    account_number = serializers.IntegerField(source="remote_id", read_only=True)

    class Meta:
        model = CompetitiveRanking
        fields = ["account_number", "name", "count", "positive_count", "neutral_count",
                  "negative_count", "rating", "competitors", "last_seen_at"]
        read_only_fields = fields


class SurveySerializer(serializers.ModelSerializer):
    survey_id = serializers.IntegerField(source="remote_id", read_only=True)

    class Meta:
        model = Survey
        fields = ["survey_id", "name", "created_at"]
        read_only_fields = fields


class SurveyAddSerializer(StrictSerializer):
    """Name a survey by the provider's id; its responses are mirrored from the next sync."""

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

"""Serializers of the history API: its query (validated, unknown parameters refused) and the
shape of a series, written out by `history_body`."""

from __future__ import annotations

from datetime import date

from rest_framework import serializers

from history.models import AccountDay, DayFigures
from history.selectors import INTERVALS, Point, Subject

DATE = ["%Y-%m-%d"]


class HistoryQuerySerializer(serializers.Serializer):
    """`from` and `to` are days (YYYY-MM-DD); `interval` groups the days into points."""

    # `from` is a Python keyword: the fields are declared here rather than as attributes.
    def get_fields(self):
        return {
            "from": serializers.DateField(
                required=False, input_formats=DATE,
                help_text="First day, YYYY-MM-DD (default: 90 days, 26 weeks or 24 months "
                          "before `to`, by interval)."),
            "to": serializers.DateField(required=False, input_formats=DATE,
                                        help_text="Last day, YYYY-MM-DD (default: today)."),
            "interval": serializers.ChoiceField(
                choices=INTERVALS, required=False, default="day",
                help_text="`day`, `week` (weeks start on Monday) or `month`: each point is the "
                          "last recorded day of its period."),
        }

    def to_internal_value(self, data):
        unknown = sorted(set(data) - set(self.fields) - {"format"})
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown parameter: this operation does not take it."]
                 for name in unknown})
        return super().to_internal_value(data)

    def validate(self, attrs):
        start, end = attrs.get("from"), attrs.get("to")
        if start is not None and end is not None and start > end:
            raise serializers.ValidationError(
                {"from": [f"The first day ({start}) is after the last ({end})."]})
        return attrs


class SitesSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    synced = serializers.IntegerField()
    submitted = serializers.IntegerField()
    need_updates = serializers.IntegerField(help_text="Sites needing action.")
    opted_out = serializers.IntegerField()
    not_connected = serializers.IntegerField()


class ReviewsSerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Reviews counted, unrated ones included.")
    by_rating = serializers.DictField(child=serializers.IntegerField(),
                                      help_text='Stars "1" to "5" -> reviews.')
    rated = serializers.IntegerField()
    average = serializers.FloatField(allow_null=True,
                                     help_text="Over the rated reviews only.")


class CompetitorsSerializer(serializers.Serializer):
    rows = serializers.IntegerField(help_text="Competitor metrics (a location on a source).")
    average_rating = serializers.FloatField(allow_null=True)
    reviews = serializers.IntegerField()


class RankingSerializer(serializers.Serializer):
    rating = serializers.FloatField(allow_null=True)
    reviews = serializers.IntegerField()
    positive = serializers.IntegerField()
    neutral = serializers.IntegerField()
    negative = serializers.IntegerField()


class AiSearchSerializer(serializers.Serializer):
    quota = serializers.IntegerField(allow_null=True)
    themes = serializers.IntegerField()
    prompts = serializers.IntegerField()


class SurveysSerializer(serializers.Serializer):
    responses = serializers.IntegerField(
        help_text="Completed responses of the 30 days up to the day.")
    average_score = serializers.FloatField(
        allow_null=True, help_text="Their average overall score, where it is a number.")
    nps = serializers.IntegerField(
        allow_null=True, help_text="Net Promoter Score (-100 to 100) of those that answered "
                                   "the recommendation question.")
    promoters = serializers.IntegerField(allow_null=True)
    passives = serializers.IntegerField(allow_null=True)
    detractors = serializers.IntegerField(allow_null=True)


class PointSerializer(serializers.Serializer):
    period_start = serializers.DateField(help_text="First day of the period (the day itself "
                                                   "by day, a Monday by week).")
    day = serializers.DateField(help_text="The recorded day whose figures these are: the "
                                          "last one of the period.")
    locations = serializers.IntegerField(help_text="Current locations counted.")
    status_reports = serializers.IntegerField(help_text="Of them, those with a status report.")
    sites = SitesSerializer()
    synced_percent = serializers.FloatField(allow_null=True)
    locations_needing_action = serializers.IntegerField()
    reviews = ReviewsSerializer(allow_null=True,
                                help_text="Null when no review counts were mirrored.")
    competitors = CompetitorsSerializer(required=False, allow_null=True,
                                        help_text="The account's series only.")
    ranking = RankingSerializer(required=False, allow_null=True,
                                help_text="The account's series only.")
    ai_search = AiSearchSerializer(required=False, allow_null=True,
                                   help_text="The account's series only.")
    surveys = SurveysSerializer(required=False, allow_null=True,
                                help_text="The account's series only.")


class HistorySerializer(serializers.Serializer):
    subject = serializers.ChoiceField(
        choices=["account", "subtree", "business"],
        help_text="`account`, `subtree` (a member limited to part of the account gets the sums "
                  "of their subtree) or `business`.")
    business_number = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    interval = serializers.ChoiceField(choices=INTERVALS)
    points = PointSerializer(many=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.DateField()
        fields["to"] = serializers.DateField()
        return fields


def _float(value) -> float | None:
    return None if value is None else float(value)


def _point(point: Point, *, account: bool) -> dict:
    row: DayFigures = point.row
    rated, average = row.rated_and_average
    data = {
        "period_start": point.period, "day": row.day, "locations": row.locations,
        "status_reports": row.reports,
        "sites": {"total": row.total_sites, "synced": row.synced, "submitted": row.submitted,
                  "need_updates": row.need_updates, "opted_out": row.opted_out,
                  "not_connected": row.not_connected},
        "synced_percent": row.synced_percent, "locations_needing_action": row.needs_action,
        "reviews": None if row.reviews is None else {
            "total": row.reviews, "by_rating": {str(k): v for k, v in row.by_rating.items()},
            "rated": rated, "average": _float(average)},
    }
    if account and isinstance(row, AccountDay):
        data["competitors"] = None if row.competitors is None else {
            "rows": row.competitors, "average_rating": _float(row.competitor_rating),
            "reviews": row.competitor_reviews or 0}
        data["ranking"] = None if row.ranking_reviews is None else {
            "rating": _float(row.ranking_rating), "reviews": row.ranking_reviews,
            "positive": row.ranking_positive or 0, "neutral": row.ranking_neutral or 0,
            "negative": row.ranking_negative or 0}
        data["ai_search"] = None if row.ai_themes is None else {
            "quota": row.ai_quota, "themes": row.ai_themes, "prompts": row.ai_prompts or 0}
        data["surveys"] = None if row.survey_responses is None else {
            "responses": row.survey_responses, "average_score": _float(row.survey_score),
            "nps": row.nps, "promoters": row.nps_promoters, "passives": row.nps_passives,
            "detractors": row.nps_detractors}
    return data


def history_body(*, subject: Subject, start: date, end: date, interval: str,
                 points: list[Point]) -> dict:
    return {
        "subject": subject.kind,
        "business_number": subject.business.remote_id if subject.business else None,
        "name": subject.name, "from": start, "to": end, "interval": interval,
        "points": [_point(point, account=subject.is_account) for point in points],
    }

"""Serializers of the report API: its query (documented here, checked by the page's own form,
`reports.forms.ReportForm`) and the report's figures (`reports.selectors.Report`)."""

from __future__ import annotations

from rest_framework import serializers

from accounts.filtersets import BIGINT_MAX
from history.api.serializers import SitesSerializer
from reports.selectors import PRESETS

DATE = ["%Y-%m-%d"]


class ReportQuerySerializer(serializers.Serializer):
    """Documents the parameters; `reports.forms.ReportForm` checks them, as on the page."""

    # `from` is a Python keyword: the fields are declared here rather than as attributes.
    def get_fields(self):
        return {
            "business": serializers.IntegerField(
                required=False, min_value=1, max_value=BIGINT_MAX,
                help_text="Business number of the client: a reseller, an enterprise or a "
                          "location, with everything under it. Without it: the whole account "
                          "(a member limited to part of it: their part)."),
            "period": serializers.ChoiceField(
                choices=PRESETS, required=False,
                help_text="`last_month` (the default), `this_month`, `last_quarter`, or "
                          "`custom` (the default when `from` or `to` is given)."),
            "from": serializers.DateField(
                required=False, input_formats=DATE,
                help_text="First day, YYYY-MM-DD (with `to`; at most 366 days)."),
            "to": serializers.DateField(required=False, input_formats=DATE,
                                        help_text="Last day, YYYY-MM-DD, today at the latest."),
        }


class ReportSitesSerializer(SitesSerializer):
    """The sites by status as the history API names them, with what the report adds."""

    status_reports = serializers.IntegerField(source="reports",
                                              help_text="Locations with a status report.")
    locations_needing_action = serializers.IntegerField(source="needs_action")
    synced_percent = serializers.IntegerField(allow_null=True,
                                              help_text="The whole percent, as the dashboard.")


class ReportNeedsActionSerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    name = serializers.CharField()
    place = serializers.CharField()
    work = serializers.CharField(help_text="The work it asks, in words.")
    sites = serializers.CharField(help_text='"3 of 22 sites need action", or "".')
    late = serializers.CharField(help_text='"2 sites late", or "".')


class ReportLocationsSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Current locations of the client.")
    by_status = serializers.DictField(child=serializers.IntegerField())
    needing_action = serializers.IntegerField()
    work = serializers.DictField(child=serializers.IntegerField(),
                                 help_text="Locations needing action by the work they ask "
                                           "(the businesses list's `triage` values).")
    first = ReportNeedsActionSerializer(many=True, help_text="Those asking the most work, first.")


class ReportPointSerializer(serializers.Serializer):
    period_start = serializers.DateField(source="period")
    day = serializers.DateField(help_text="The recorded day: the last one of its period.")
    synced_percent = serializers.FloatField(allow_null=True)
    average_rating = serializers.FloatField(allow_null=True)
    reviews = serializers.IntegerField(allow_null=True)
    sites_needing_action = serializers.IntegerField()
    locations_needing_action = serializers.IntegerField()


class ReportChangeSerializer(serializers.Serializer):
    figure = serializers.CharField(source="figure.key")
    label = serializers.CharField(source="figure.label")
    now = serializers.FloatField(allow_null=True, help_text="At the period's last recorded "
                                                            "day.")
    before = serializers.FloatField(allow_null=True, help_text="At `before_day`.")
    before_day = serializers.DateField(allow_null=True)
    delta = serializers.FloatField(allow_null=True)
    verdict = serializers.CharField(help_text='"better", "worse" or "".')


class ReportReviewsSerializer(serializers.Serializer):
    day = serializers.DateField()
    total = serializers.IntegerField(help_text="Reviews counted, unrated ones included.")
    by_rating = serializers.DictField(child=serializers.IntegerField(),
                                      help_text='Stars "5" to "1" -> reviews.')
    rated = serializers.IntegerField()
    average = serializers.FloatField(allow_null=True, help_text="Over the rated reviews only.")


class ReportLateSiteSerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    location = serializers.CharField()
    site = serializers.CharField()
    status = serializers.CharField()
    age = serializers.CharField()
    late_by = serializers.CharField()
    todo = serializers.CharField()


class ReportLateSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    by_status = serializers.DictField(child=serializers.IntegerField())
    first = ReportLateSiteSerializer(many=True, help_text="The most late first.")


class ReportCompetitionSerializer(serializers.Serializer):
    day = serializers.DateField()
    average_rating = serializers.FloatField(allow_null=True)
    competitor_rows = serializers.IntegerField(allow_null=True)
    competitor_rating = serializers.FloatField(allow_null=True)
    competitor_reviews = serializers.IntegerField(allow_null=True)
    ranking_rating = serializers.FloatField(allow_null=True)
    ranking_reviews = serializers.IntegerField(allow_null=True)
    positive_percent = serializers.IntegerField(allow_null=True)
    position = serializers.IntegerField(allow_null=True,
                                        help_text="In the ranking as of its last sync.")
    ranked = serializers.IntegerField(allow_null=True)


class ReportSurveysSerializer(serializers.Serializer):
    day = serializers.DateField()
    responses = serializers.IntegerField(help_text="Completed responses of the 30 days up to "
                                                   "`day`.")
    average_score = serializers.FloatField(allow_null=True)
    nps = serializers.IntegerField(allow_null=True)
    promoters = serializers.IntegerField(allow_null=True)
    passives = serializers.IntegerField(allow_null=True)
    detractors = serializers.IntegerField(allow_null=True)


class ReportActivitySerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    kind = serializers.CharField()
    what = serializers.CharField()
    where = serializers.CharField()
    state = serializers.CharField()


class ReportWorkSerializer(serializers.Serializer):
    listing_versions_sent = serializers.IntegerField()
    listing_versions_accepted = serializers.IntegerField()
    listing_versions_refused = serializers.IntegerField()
    bulk_changes = serializers.IntegerField()
    bulk_locations_changed = serializers.IntegerField()
    media_sent = serializers.IntegerField()
    media_added = serializers.IntegerField()
    latest = ReportActivitySerializer(many=True)


class ReportSummarySerializer(serializers.Serializer):
    subject = serializers.CharField(
        source="subject_kind", help_text="`account`, `subtree` (a member limited to part of "
                                         "the account) or `business`.")
    business_number = serializers.IntegerField(allow_null=True)
    name = serializers.CharField(source="client_name")
    date_from = serializers.DateField()
    date_to = serializers.DateField()
    made_at = serializers.DateTimeField()
    interval = serializers.CharField(help_text="`day`, `week` or `month`: the points' period.")
    locations = ReportLocationsSerializer()
    sites_now = ReportSitesSerializer()
    sites_at_end = ReportSitesSerializer(source="sites_end", allow_null=True,
                                   help_text="At the period's last recorded day.")
    first_day = serializers.DateField(allow_null=True)
    last_day = serializers.DateField(allow_null=True)
    before_day = serializers.DateField(allow_null=True)
    changes = ReportChangeSerializer(
        many=True, help_text="Each figure at the period's last recorded day against the last "
                             "day before it.")
    points = ReportPointSerializer(many=True)
    reviews = ReportReviewsSerializer(allow_null=True)
    late_sites = ReportLateSerializer(source="late")
    competition = ReportCompetitionSerializer(allow_null=True, help_text="The whole account only.")
    surveys = ReportSurveysSerializer(allow_null=True, help_text="The whole account only.")
    work = ReportWorkSerializer(help_text="What the agency changed in the period.")

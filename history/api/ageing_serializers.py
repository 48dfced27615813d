"""Serializers of the late sites and of the directories' delays."""

from __future__ import annotations

from rest_framework import serializers

from accounts.filtersets import BIGINT_MAX
from history.ageing import SORT_CHOICES, STATUS_PARAMS
from history.delays import MAX_DELAY_DAYS
from portal.api.serializers import StrictSerializer


class LateSitesQuerySerializer(serializers.Serializer):
    """Documents the list's parameters; `history.ageing_forms.LateSitesQueryForm` checks
    them, as on the page."""

    q = serializers.CharField(required=False, help_text="Words of the location's name, city, "
                              "state, postal code or number.")
    site = serializers.IntegerField(required=False, help_text="A directory site's id.")
    status = serializers.ChoiceField(choices=list(STATUS_PARAMS), required=False)
    within = serializers.IntegerField(
        required=False, min_value=1, max_value=BIGINT_MAX,
        help_text="Business number of a reseller or enterprise: only the locations under it.")
    sort = serializers.ChoiceField(
        choices=[value for value, _ in SORT_CHOICES], required=False,
        help_text="`-late_by` (default: most late first), `late_by`, `-age` (oldest first), "
                  "`age`, `site`, `-site`, `location`, `-location`.")


class LateSiteSerializer(serializers.Serializer):
    business_number = serializers.IntegerField(source="business.remote_id")
    location = serializers.CharField(source="business.name")
    address = serializers.SerializerMethodField()
    site_id = serializers.IntegerField()
    site_name = serializers.CharField()
    status = serializers.CharField()
    since = serializers.DateTimeField()
    since_is_lower_bound = serializers.BooleanField(
        help_text="The site was never seen changing: its status is at least this old.")
    age_days = serializers.IntegerField()
    delay_days = serializers.IntegerField(help_text="The directory's usual delay (for Action "
                                                    "Required: the grace to act).")
    delay_source = serializers.ChoiceField(choices=["own", "learned", "default", "grace"])
    late_by_days = serializers.IntegerField()
    todo = serializers.CharField(help_text="What to do, in words.")
    errors = serializers.ListField(child=serializers.CharField(),
                                   help_text="What the directory asks (Action Required).")

    def get_address(self, row) -> str:
        return ", ".join(row.business.address_lines)


class DirectoryDelaySerializer(serializers.Serializer):
    site_id = serializers.IntegerField()
    site_name = serializers.CharField()
    default_days = serializers.IntegerField()
    learned_days = serializers.IntegerField(allow_null=True, help_text="The median wait to "
                                            "Synced of your sites over the last half year.")
    learned_transitions = serializers.IntegerField(help_text="The waits it was learned from.")
    learned_applies = serializers.BooleanField(help_text="Enough waits were seen to use it.")
    own_days = serializers.IntegerField(allow_null=True)
    own_in_progress_days = serializers.IntegerField(allow_null=True)
    days = serializers.IntegerField(help_text="The delay that applies.")
    source = serializers.ChoiceField(choices=["own", "learned", "default"])


class DelayWriteSerializer(StrictSerializer):
    site_id = serializers.IntegerField(min_value=1)
    days = serializers.IntegerField(min_value=1, max_value=MAX_DELAY_DAYS, allow_null=True,
                                    help_text="Your delay from Submitted; null gives the site "
                                              "back its learned or default delay.")
    in_progress_days = serializers.IntegerField(
        min_value=1, max_value=MAX_DELAY_DAYS, allow_null=True, required=False, default=None,
        help_text="Your delay from In Progress, if not the same.")


class DirectoryDelaysWriteSerializer(StrictSerializer):
    api_description = ("The sites listed get your delay (null clears it); the others keep "
                       "theirs. " + StrictSerializer.api_description)
    delays = DelayWriteSerializer(many=True, allow_empty=False)

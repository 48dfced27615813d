from rest_framework import serializers

from accounts.forms import LEVEL_NAME_MAX, LEVEL_VALUE_MAX
from accounts.models import AuditEvent, Business
from outbox.models import OutboxEntry
from portal.api.serializers import StrictSerializer


class BusinessSerializer(serializers.ModelSerializer):
    business_number = serializers.IntegerField(source="remote_id", read_only=True)
    parent_number = serializers.IntegerField(source="parent.remote_id", read_only=True,
                                             allow_null=True, default=None)
    listing_status = serializers.CharField(source="status_report.location_status",
                                           read_only=True, allow_null=True, default=None)
    needs_action = serializers.BooleanField(source="status_report.needs_action",
                                            read_only=True, allow_null=True, default=None)

    class Meta:
        model = Business
        fields = ["business_number", "parent_number", "name", "alias", "type", "status",
                  "address1", "address2", "sub_locality", "city", "state", "zip",
                  "country_code", "country_name", "phone", "child_count", "created_on",
                  "created_by", "depth", "listing_status", "needs_action", "last_seen_at",
                  "removed_at"]
        read_only_fields = fields


# -- changes (outbox entries) -------------------------------------------------------------------


class ChangeSerializer(serializers.ModelSerializer):
    """A write queued for the provider; poll it until `state` is accepted, rejected or failed."""

    business_number = serializers.IntegerField(source="business.remote_id", read_only=True,
                                               allow_null=True, default=None)
    finished = serializers.SerializerMethodField()

    class Meta:
        model = OutboxEntry
        fields = ["id", "kind", "state", "finished", "summary", "business_number",
                  "provider_code", "provider_message", "attempts", "created_at", "finished_at"]
        read_only_fields = fields

    def get_finished(self, entry) -> bool:
        return not entry.is_open


# -- hierarchy mapping ---------------------------------------------------------------------------


class HierarchyWriteSerializer(StrictSerializer):
    """The whole mapping: the provider replaces what it holds with exactly these levels."""

    levels = serializers.DictField(
        child=serializers.CharField(max_length=LEVEL_VALUE_MAX, allow_blank=False,
                                    trim_whitespace=True),
        allow_empty=False,
        help_text="Level name → value; every value non-empty, each name at most once.")

    def validate_levels(self, levels):
        errors, seen, clean = {}, set(), {}
        for name, value in levels.items():
            stripped = str(name).strip()
            if not stripped:
                errors[name or "(empty)"] = ["A level needs a name."]
            elif len(stripped) > LEVEL_NAME_MAX:
                errors[name] = [f"A level name has at most {LEVEL_NAME_MAX} characters."]
            elif stripped.casefold() in seen:
                errors[name] = [f"“{stripped}” is given twice; each level appears once."]
            seen.add(stripped.casefold())
            clean[stripped] = value
        if errors:
            raise serializers.ValidationError(errors)
        return clean


class HierarchySerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    levels = serializers.DictField(child=serializers.CharField(),
                                   help_text="The levels the provider last accepted.")
    latest_change = ChangeSerializer(allow_null=True,
                                     help_text="The latest change sent (or being sent).")
    requested_levels = serializers.DictField(
        child=serializers.CharField(), allow_null=True,
        help_text="What the latest change asks for (until it is accepted, it differs from "
                  "`levels`).")


# -- sync runs -----------------------------------------------------------------------------------


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_label", read_only=True)
    summary = serializers.JSONField(read_only=True)

    class Meta:
        model = AuditEvent
        fields = ["id", "created_at", "actor", "action", "object_type", "object_id", "summary"]
        read_only_fields = fields


class AuditFilterSerializer(serializers.Serializer):
    action = serializers.CharField(required=False, allow_blank=True, max_length=64)
    actor = serializers.CharField(required=False, allow_blank=True, max_length=254,
                                  help_text="Part of the actor's email.")
    date_from = serializers.DateField(required=False, allow_null=True)
    date_to = serializers.DateField(required=False, allow_null=True)

    def validate(self, attrs):
        start, end = attrs.get("date_from"), attrs.get("date_to")
        if start and end and start > end:
            raise serializers.ValidationError({"date_to": ["The end date is before the start "
                                                           "date."]})
        return attrs


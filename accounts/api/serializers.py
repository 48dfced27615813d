from rest_framework import serializers

from accounts.audit_labels import action_label
from accounts.models import AuditEvent, Business


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


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_label", read_only=True)
    action_label = serializers.SerializerMethodField(
        help_text="What `action` means, in a sentence (as the portal's audit log shows it).")
    summary = serializers.JSONField(read_only=True)

    class Meta:
        model = AuditEvent
        fields = ["id", "created_at", "actor", "action", "action_label", "object_type",
                  "object_id", "summary"]
        read_only_fields = fields

    def get_action_label(self, event: AuditEvent) -> str:
        return action_label(event.action)


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


from django.core.exceptions import ValidationError
from rest_framework import serializers

from accounts.audit_labels import action_label
from accounts.models import AuditEvent, Business, Reseller, WireDialect, validate_time_zone
from accounts.services import RATE_LIMIT_RULE, rate_limit_parse
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



class ConnectionSerializer(StrictSerializer, serializers.ModelSerializer):
    """The provider connection. The key itself is never read or written here: only its mask
    and fingerprint are shown, and it is entered in Settings (or `reseller_create`)."""

    rate_limit = serializers.CharField(
        source="rate_limit_text", help_text=f"The provider's rate limit. {RATE_LIMIT_RULE}")
    learned_rate = serializers.SerializerMethodField(
        help_text="Requests a second the connection has learned, when its limit is auto.")
    dialect = serializers.ChoiceField(
        source="wire_dialect", choices=WireDialect.choices,
        help_text="neutral: the interface's names (the embedded sandbox); provider: the real "
                  "provider's own names.")
    api_key = serializers.CharField(source="api_key_masked", read_only=True)
    status = serializers.CharField(source="get_status_display", read_only=True)
    time_zone = serializers.CharField(
        max_length=64, required=False,
        help_text="The agency's time zone (a name of the zone database, such as Europe/Paris): "
                  "report schedules send at their day and hour in it.")

    class Meta:
        model = Reseller
        fields = ["provider_base_url", "account_number", "api_key", "api_key_fingerprint",
                  "status", "rate_limit", "learned_rate", "dialect", "time_zone"]
        read_only_fields = ["provider_base_url", "account_number", "api_key_fingerprint"]

    def to_internal_value(self, data):
        fixed = sorted(name for name in data if name in self.fields
                       and self.fields[name].read_only) if hasattr(data, "keys") else []
        if fixed:
            raise serializers.ValidationError(
                {name: ["Read-only here: the address, account and key are set in the portal's "
                        "Settings."] for name in fixed})
        return super().to_internal_value(data)

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError("Nothing to change: send rate_limit, dialect or "
                                              "time_zone.")
        return attrs

    def validate_time_zone(self, value: str) -> str:
        try:
            validate_time_zone(value)
        except ValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc
        return value

    def get_learned_rate(self, reseller: Reseller) -> float | None:
        rate = self.context["learned_rate"]
        return None if rate is None else round(rate, 1)

    def validate_rate_limit(self, value: str) -> str:
        try:
            rate_limit_parse(value)
        except ValidationError as exc:
            raise serializers.ValidationError(exc.message_dict["rate_limit"]) from exc
        return value

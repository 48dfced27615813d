"""The API's one shape of an outbox row: a change sent to the provider."""

from rest_framework import serializers

from outbox.models import OutboxEntry


class ChangeSerializer(serializers.ModelSerializer):
    """A write queued for the provider; poll it until `state` is accepted, rejected or failed."""

    api_description = __doc__  # written for API users (portal.api.schema)

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

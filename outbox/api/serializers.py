"""The API's one shape of an outbox row: a change sent to the provider."""

from rest_framework import serializers

from outbox.models import OutboxEntry


class ChangeSerializer(serializers.ModelSerializer):
    """A write queued for the provider; poll it until `finished` (state accepted, rejected,
    failed or in_doubt). `in_doubt`: its request left, the answer was lost, and the provider's
    state cannot tell whether it arrived; check at the provider, then `retry/` (send it again)
    or `arrived/`. `actions` lists what may be done with it now."""

    api_description = __doc__  # written for API users (portal.api.schema)

    business_number = serializers.IntegerField(source="business.remote_id", read_only=True,
                                               allow_null=True, default=None)
    finished = serializers.SerializerMethodField()
    actions = serializers.SerializerMethodField()

    class Meta:
        model = OutboxEntry
        fields = ["id", "kind", "state", "finished", "summary", "business_number",
                  "provider_code", "provider_message", "attempts", "actions", "created_at",
                  "finished_at"]
        read_only_fields = fields

    def get_finished(self, entry) -> bool:
        return not entry.is_open

    def get_actions(self, entry) -> list[str]:
        actions = []
        if entry.state in OutboxEntry.RETRYABLE_STATES:
            actions.append("retry")
        if entry.state == OutboxEntry.State.IN_DOUBT:
            actions.append("arrived")
        return actions

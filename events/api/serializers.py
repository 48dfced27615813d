from rest_framework import serializers

from events.models import EventReceiver, ProviderEvent
from events.services import event_receiver_url


class ProviderEventSerializer(serializers.ModelSerializer):
    payload = serializers.JSONField(read_only=True, help_text="The delivery as parsed.")

    class Meta:
        model = ProviderEvent
        fields = ["id", "event_name", "business_remote_id", "occurred_at", "received_at",
                  "last_received_at", "deliveries", "state", "attempts", "processed_at",
                  "result", "payload"]
        read_only_fields = fields


class EventReceiverSerializer(serializers.ModelSerializer):
    active = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField(help_text="Where the provider delivers events.")

    class Meta:
        model = EventReceiver
        fields = ["active", "url", "events", "created_at", "disabled_at"]
        read_only_fields = fields

    def get_active(self, receiver: EventReceiver) -> bool:
        return receiver.disabled_at is None

    def get_url(self, receiver: EventReceiver) -> str:
        return event_receiver_url(receiver)

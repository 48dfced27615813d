"""Serializers of the alerts API: notifications, their channels and the account's rules."""

from __future__ import annotations

from rest_framework import serializers

from alerts.kinds import KINDS, Channel, Kind
from alerts.models import Notification
from portal.api.base import LimitOffset
from portal.api.serializers import StrictSerializer

CHANNEL_HELP = ("`off`; `portal` (the notification list only); `email` (and an email at once); "
                "`digest` (and the daily email digest).")


class AlertLocationSerializer(serializers.Serializer):
    business_number = serializers.IntegerField(source="remote_id")
    name = serializers.CharField()


class NotificationSerializer(serializers.ModelSerializer):
    kind_label = serializers.CharField(source="get_kind_display")
    title = serializers.CharField(source="alert.title", help_text="What happened, in words.")
    message = serializers.CharField(source="alert.message")
    location = AlertLocationSerializer(source="alert.business", allow_null=True,
                                       help_text="The location or subtree concerned; null "
                                                 "for the whole account.")
    link = serializers.CharField(source="alert.link", help_text="The page to act on (a path "
                                                                "of the portal).")
    data = serializers.JSONField(source="alert.data", help_text="The figures behind it.")
    unread = serializers.SerializerMethodField()

    class Meta:
        model = Notification
        fields = ["id", "kind", "kind_label", "title", "message", "location", "link", "data",
                  "created_at", "unread", "read_at", "channel", "emailed_at"]

    def get_unread(self, notification) -> bool:
        return notification.read_at is None


class NotificationQuerySerializer(StrictSerializer):
    api_description = ""
    unread = serializers.BooleanField(required=False, allow_null=True,
                                      help_text="true: unread only; false: read only.")
    kind = serializers.ChoiceField(choices=Kind.choices, required=False)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=LimitOffset.max_limit)
    offset = serializers.IntegerField(required=False, min_value=0)


class ReadAllSerializer(StrictSerializer):
    kind = serializers.ChoiceField(choices=Kind.choices, required=False,
                                   help_text="Only the notifications of this kind.")


class ReadAllResultSerializer(serializers.Serializer):
    marked = serializers.IntegerField(help_text="How many were unread and are now read.")


def _preferences_fields() -> dict:
    return {kind.value: serializers.ChoiceField(
        choices=Channel.choices, required=False, help_text=f"{kind.label}. {CHANNEL_HELP}")
        for kind in Kind}


def _not_empty(self, attrs):
    if not attrs:
        raise serializers.ValidationError("Nothing to change: send at least one field.")
    return attrs


NotificationPreferencesSerializer = type("NotificationPreferencesSerializer",
                                         (StrictSerializer,), {
    "validate": _not_empty,
    "api_description": "Your channel for each kind of alert: " + CHANNEL_HELP + " A kind not "
                       "sent keeps its channel. A field this operation does not take is "
                       "refused (400), named in `fields`.",
    **_preferences_fields()})


def _rule_serializer(kind: Kind):
    info = KINDS[kind]
    fields = {"enabled": serializers.BooleanField(required=False)}
    if info.threshold is not None:
        fields["threshold"] = serializers.IntegerField(required=False,
                                                       help_text=info.threshold_label)
    if info.amount is not None:
        fields["amount"] = serializers.DecimalField(max_digits=3, decimal_places=2,
                                                    required=False,
                                                    help_text=info.amount_label)
    if info.period_days is not None:
        fields["period_days"] = serializers.IntegerField(required=False,
                                                         help_text="The period, in days.")
    name = "".join(part.title() for part in kind.value.split("_")) + "RuleSerializer"
    return type(name, (StrictSerializer,), {"api_description": info.description, **fields})


AlertRulesSerializer = type("AlertRulesSerializer", (StrictSerializer,), {
    "validate": _not_empty,
    "api_description": "The account's rules, one per kind of alert: on or off, and their "
                       "settings (`threshold`, `amount` in stars, `period_days`) where the "
                       "kind has them. A kind not sent is left as it is. A field this "
                       "operation does not take is refused (400), named in `fields`.",
    **{kind.value: _rule_serializer(kind)(required=False) for kind in Kind}})


def rules_body(rules) -> dict:
    body = {}
    for kind, rule in rules.items():
        info = KINDS[kind]
        values = {"enabled": rule.enabled}
        if info.threshold is not None:
            values["threshold"] = rule.threshold
        if info.amount is not None:
            values["amount"] = f"{rule.amount:.2f}"
        if info.period_days is not None:
            values["period_days"] = rule.period_days
        body[kind] = values
    return body

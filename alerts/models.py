"""Alerts and the notifications that carry them to members.

An `Alert` is one cause (a rejected change, a failed run, a site late since a given day...),
unique per reseller, kind and cause key: whatever evaluates it again, the same cause is never
told twice. Each member who follows the kind and may see the alert's location gets one
`Notification`, which keeps the channel chosen at the time, when it was read and when it was
emailed (set when the email is claimed, so that no two workers send it).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from alerts.kinds import KINDS, Channel, Kind
from portal.tenancy import TenantOwned


class AlertRule(TenantOwned):
    """A reseller's settings of one kind. Without a row, the kind is on with its defaults
    (`alerts.kinds.KINDS`); the row is written the first time an owner changes them."""

    kind = models.CharField(max_length=32, choices=Kind.choices)
    enabled = models.BooleanField(default=True)
    threshold = models.PositiveIntegerField(null=True, blank=True)
    amount = models.DecimalField(max_digits=3, decimal_places=2, null=True, blank=True)
    period_days = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "kind"],
                                               name="alert_rule_unique_kind")]
        ordering = ["kind"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({'on' if self.enabled else 'off'})"

    @classmethod
    def default(cls, *, reseller, kind: str) -> AlertRule:
        info = KINDS[kind]
        return cls(reseller=reseller, kind=kind, enabled=True, threshold=info.threshold,
                   amount=info.amount, period_days=info.period_days)


class Alert(TenantOwned):
    kind = models.CharField(max_length=32, choices=Kind.choices)
    cause = models.CharField(max_length=200, help_text="What the alert is about, once.")
    business = models.ForeignKey("accounts.Business", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+",
                                 help_text="The location or subtree; empty: the whole account.")
    title = models.CharField(max_length=300)
    message = models.TextField()
    link = models.CharField(max_length=500, help_text="The page to act on (a path).")
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "kind", "cause"],
                                               name="alert_unique_cause")]
        indexes = [models.Index(fields=["reseller", "kind", "business", "-created_at"],
                                name="alert_kind_business_idx")]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title


class Notification(TenantOwned):
    alert = models.ForeignKey(Alert, on_delete=models.CASCADE, related_name="notifications")
    membership = models.ForeignKey("accounts.Membership", on_delete=models.CASCADE,
                                   related_name="+")
    # The alert's kind and time, copied: the list filters and orders on the member's own rows.
    kind = models.CharField(max_length=32, choices=Kind.choices)
    created_at = models.DateTimeField(default=timezone.now)
    channel = models.CharField(max_length=8, choices=Channel.choices,
                               help_text="The member's channel for the kind when it was sent.")
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["alert", "membership"],
                                               name="notification_unique_member")]
        indexes = [
            # The bell's count and the list's unread first.
            models.Index(fields=["membership", "read_at", "-created_at"],
                         name="notification_member_idx"),
            # The emails still to send, at once or in the digest.
            models.Index(fields=["channel", "created_at"], name="notification_unsent_idx",
                         condition=Q(emailed_at__isnull=True, channel__in=["email", "digest"])),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.alert_id} for {self.membership_id}"

    @property
    def is_read(self) -> bool:
        return self.read_at is not None


class NotificationPreference(TenantOwned):
    """A member's channel for one kind; without a row, the default of their role."""

    membership = models.ForeignKey("accounts.Membership", on_delete=models.CASCADE,
                                   related_name="+")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    channel = models.CharField(max_length=8, choices=Channel.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["membership", "kind"],
                                               name="notification_preference_unique")]

    def __str__(self) -> str:
        return f"{self.membership_id}: {self.kind} {self.channel}"




"""Events the provider delivers to the portal's own webhook endpoint."""

import uuid

from django.db import models
from django.utils import timezone

from portal.tenancy import TenantOwned


class EventReceiver(TenantOwned):
    """The portal's webhook endpoint for one reseller, and the Basic credentials it demands.

    The provider holds the password (it was sent with Subscribe); the portal keeps only its
    SHA-256, which is enough for a random 256-bit secret, and compares in constant time.
    """

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    username = models.CharField(max_length=64)
    password_hash = models.CharField(max_length=64)
    events = models.JSONField(default=list, help_text="Event names subscribed for.")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller"], name="event_receiver_unique")]

    def __str__(self) -> str:
        return f"Event receiver of reseller {self.reseller_id}"


class ProviderEvent(TenantOwned):
    """One distinct event delivery, stored raw as it arrived, and what the portal did with it.

    The same delivery arriving again (the provider retries; a flood) is recognised by its
    `dedupe_key`, a hash of the canonical payload, and only counted.
    """

    class State(models.TextChoices):
        RECEIVED = "received", "Received"
        PROCESSING = "processing", "Processing"
        PROCESSED = "processed", "Processed"
        IGNORED = "ignored", "Ignored"
        FAILED = "failed", "Failed"

    dedupe_key = models.CharField(max_length=64)
    event_name = models.CharField(max_length=64, db_index=True)
    business_remote_id = models.BigIntegerField(null=True, blank=True)
    business = models.ForeignKey("accounts.Business", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    occurred_at = models.DateTimeField(null=True, blank=True)
    body = models.TextField(help_text="The delivery's body exactly as received.")
    payload = models.JSONField(default=dict)
    received_at = models.DateTimeField(default=timezone.now, db_index=True)
    last_received_at = models.DateTimeField(default=timezone.now)
    deliveries = models.PositiveIntegerField(default=1)
    state = models.CharField(max_length=16, choices=State.choices, default=State.RECEIVED)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    result = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["reseller", "dedupe_key"],
                                               name="provider_event_unique_delivery")]
        indexes = [models.Index(fields=["state", "next_attempt_at"],
                                name="provider_event_due")]

    def __str__(self) -> str:
        return f"{self.event_name} for {self.business_remote_id} ({self.get_state_display()})"

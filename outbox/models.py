"""The outbox: every write to the provider, stored with the user's change before it is sent."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.tenancy import TenantOwned


class OutboxEntry(TenantOwned):
    """A write to the provider, stored with the user's change before it is sent.

    The change and this row commit in one transaction; a task sends it, and a periodic sweep
    sends the rows whose task was lost. Nothing a user saves is lost because the provider is
    slow, failing or limiting: the row stays, with its state and the provider's reply.
    """

    class Kind(models.TextChoices):
        LISTING_CREATE = "listing_create", "Listing update"
        MEDIA_ADD = "media_add", "Media upload"
        CUSTOM_FIELD_CREATE = "custom_field_create", "Custom field"
        HIERARCHY_UPDATE = "hierarchy_update", "Hierarchy update"
        QNA_DELETE_ALL = "qna_delete_all", "Q&A deletion"
        SUBSCRIBE = "subscribe", "Webhook subscription"
        UNSUBSCRIBE = "unsubscribe", "Webhook removal"

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"
        FAILED = "failed", "Failed"
        # A request left and its answer was lost, and the provider's state cannot tell whether
        # it arrived: a person decides (send it again, or mark it as arrived).
        IN_DOUBT = "in_doubt", "In doubt"

    kind = models.CharField(max_length=32, choices=Kind.choices)
    business = models.ForeignKey("accounts.Business", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    payload = models.JSONField(default=dict, help_text="What is sent to the provider.")
    summary = models.CharField(max_length=255, blank=True, help_text="What the user changed.")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING,
                             db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    in_doubt = models.BooleanField(
        default=False, help_text="An earlier send may have reached the provider unseen: the next "
                                 "send reads the provider's state back first.")
    doubt_since = models.DateTimeField(
        null=True, blank=True, help_text="When the first request whose outcome is unknown left: "
                                         "the provider's state is read against this moment.")
    next_attempt_at = models.DateTimeField(default=timezone.now, db_index=True)
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When its send task was last queued; the sweep queues "
                                         "it again if that task seems lost.")
    claimed_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="The sending worker's last sign of life; a row whose "
                                         "worker stopped giving one is taken up by another.")
    request_sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When this send's request left for the provider (after "
                                         "any wait for a rate-limit slot); cleared when the "
                                         "provider answered without acting on it.")
    provider_code = models.IntegerField(null=True, blank=True)
    provider_message = models.TextField(blank=True)
    provider_reply = models.JSONField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # The outbox is still working on these.
    OPEN_STATES = (State.PENDING, State.SENDING)
    # Not settled yet: a next change of the same thing waits for these to be.
    UNSETTLED_STATES = (State.PENDING, State.SENDING, State.IN_DOUBT)
    # A person may send these again.
    RETRYABLE_STATES = (State.FAILED, State.REJECTED, State.IN_DOUBT)

    class Meta:
        verbose_name = "outbox entry"
        verbose_name_plural = "outbox"
        ordering = ["-created_at", "-id"]
        # The table and index keep the names they had when the model lived in `portal`.
        db_table = "portal_outboxentry"
        indexes = [models.Index(fields=["reseller", "state", "next_attempt_at"],
                                name="portal_outb_reselle_a877b4_idx"),
                   # The sweep's reads across resellers: due rows, and rows being sent.
                   models.Index(fields=["state", "next_attempt_at"],
                                name="outbox_state_due_idx")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.get_state_display()})"

    @property
    def is_open(self) -> bool:
        return self.state in self.OPEN_STATES

"""Bulk changes of listings: one change of many locations' listings, rehearsed first (the dry
run), and later sent in waves through the outbox and taken back if need be.

A `BulkChange` keeps what was asked as it was given (the selection, the part of the listing to
set, replace or append, the wave sizes), so that it can be shown, run again or audited; its
`BulkChangeItem` rows say, per location, what the change does to that listing.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.tenancy import TenantOwned


class BulkChange(TenantOwned):
    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        DRY_RUN_DONE = "dry_run_done", "Dry run done"
        # The states of sending, pausing and taking back (not reachable yet: sending comes
        # later); declared now so that stored rows never need renaming.
        APPLYING = "applying", "Applying"
        PAUSED = "paused", "Paused"
        CANCELLED = "cancelled", "Cancelled"
        DONE = "done", "Done"
        ROLLING_BACK = "rolling_back", "Rolling back"
        ROLLED_BACK = "rolled_back", "Rolled back"

    class Lists(models.TextChoices):
        REPLACE = "replace", "Replace"
        APPEND = "append", "Append"

    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    # The member's limit when the change was made: a member limited to part of the tree sees
    # only the changes made within it (as SyncRun.scope does for syncs).
    scope = models.ForeignKey("accounts.Business", null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+")
    selection = models.JSONField(
        default=dict, help_text='As given: {"numbers": [...]}, {"filter": {...}} or '
                                '{"node": number}.')
    set = models.JSONField(default=dict,
                           help_text="The part of the listing to set, in the create-listing "
                                     "shape (neutral names).")
    lists = models.CharField(max_length=8, choices=Lists.choices, default=Lists.REPLACE)
    waves = models.JSONField(default=list, help_text="Locations per wave, in order.")
    counts = models.JSONField(default=dict, blank=True)
    current_wave = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["reseller", "-created_at"])]

    def __str__(self) -> str:
        return f"Bulk change {self.pk} ({self.state})"


class BulkChangeItem(TenantOwned):
    """One location of a bulk change and what the change does to its listing."""

    class State(models.TextChoices):
        WILL_CHANGE = "will_change", "Will change"
        UNCHANGED = "unchanged", "Unchanged"
        INVALID = "invalid", "Breaks a rule"
        # Sending and taking back (later steps).
        QUEUED = "queued", "Queued"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"
        FAILED = "failed", "Failed"
        SKIPPED = "skipped", "Skipped"
        ROLLED_BACK = "rolled_back", "Rolled back"

    change = models.ForeignKey(BulkChange, on_delete=models.CASCADE, related_name="items")
    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE,
                                 related_name="+")
    # The number as it was when the change was made: the items list needs no join, and says
    # which business it was even once the business is gone from the tree.
    business_number = models.BigIntegerField()
    position = models.PositiveIntegerField(help_text="The order of the selection; waves take "
                                                     "locations in this order.")
    wave = models.PositiveSmallIntegerField(null=True, blank=True)
    state = models.CharField(max_length=16, choices=State.choices)
    diff = models.JSONField(default=list, blank=True,
                            help_text="[{path, label, old, new}], as the listing review shows.")
    errors = models.JSONField(default=list, blank=True, help_text="[{field, message}]")
    payload = models.JSONField(default=dict, blank=True,
                               help_text="The create-listing body the change would send.")
    base_number = models.PositiveIntegerField(
        default=0, help_text="The accepted listing version it was measured against; 0 before "
                             "the first. Sending checks it is still the last accepted one.")
    outbox_entry = models.OneToOneField("outbox.OutboxEntry", null=True, blank=True,
                                        on_delete=models.SET_NULL, related_name="+")
    listing_version = models.ForeignKey("listings.ListingVersion", null=True, blank=True,
                                        on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["change", "business"],
                                               name="bulk_item_unique_business")]
        indexes = [models.Index(fields=["change", "position"]),
                   models.Index(fields=["change", "state"])]

    def __str__(self) -> str:
        return f"{self.business_number}: {self.state}"

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
        APPLYING = "applying", "Applying"
        PAUSED = "paused", "Paused"
        CANCELLED = "cancelled", "Cancelled"
        DONE = "done", "Done"
        ROLLING_BACK = "rolling_back", "Rolling back"
        ROLLED_BACK = "rolled_back", "Rolled back"

    class Source(models.TextChoices):
        CHOICE = "choice", "Chosen locations"
        FILE = "file", "Imported file"

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
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.CHOICE)
    # A wave is healthy when none of its changes was refused and, if the statuses are read
    # again after it, no more than this many of its sites newly need action.
    wait_for_statuses = models.BooleanField(
        default=False, help_text="After each wave is accepted, read its locations' directory "
                                 "statuses again before the next wave.")
    action_required_threshold = models.PositiveIntegerField(
        default=0, help_text="New Action Required sites a wave may cause before the change "
                             "pauses (with wait_for_statuses).")
    paused_reason = models.TextField(blank=True)
    # A wave the user resumed past, although it was unhealthy: it is not judged again.
    resumed_past_wave = models.PositiveSmallIntegerField(default=0)
    wave_started_at = models.DateTimeField(null=True, blank=True)
    wave_accepted_at = models.DateTimeField(
        null=True, blank=True, help_text="When the current wave's last change was accepted; "
                                         "its statuses are read again after it.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

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
        QUEUED = "queued", "Queued"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"
        FAILED = "failed", "Failed"
        # Its answer was lost and the provider's state cannot tell: a person decides.
        IN_DOUBT = "in_doubt", "In doubt"
        SKIPPED = "skipped", "Skipped"
        ROLLED_BACK = "rolled_back", "Rolled back"

    class Rollback(models.TextChoices):
        NONE = "", "Not asked"
        QUEUED = "queued", "Being sent back"
        ACCEPTED = "accepted", "Rolled back"
        REJECTED = "rejected", "Refused by the provider"
        FAILED = "failed", "Failed"
        IN_DOUBT = "in_doubt", "In doubt"
        IMPOSSIBLE = "impossible", "Nothing to go back to"

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
    own_set = models.JSONField(
        default=dict, blank=True, help_text="The part of the listing this location sets when it "
                                            "differs from the change's (a row of an imported "
                                            "file); empty: the change's `set`.")
    note = models.TextField(blank=True, help_text="Why it was skipped, refused or could not "
                                                  "be rolled back, in words.")
    action_required_before = models.PositiveIntegerField(
        null=True, blank=True, help_text="Its Action Required sites when its wave was sent.")
    payload = models.JSONField(default=dict, blank=True,
                               help_text="The create-listing body the change would send.")
    base_number = models.PositiveIntegerField(
        default=0, help_text="The accepted listing version it was measured against; 0 before "
                             "the first. Sending checks it is still the last accepted one.")
    outbox_entry = models.OneToOneField("outbox.OutboxEntry", null=True, blank=True,
                                        on_delete=models.SET_NULL, related_name="+")
    listing_version = models.ForeignKey("listings.ListingVersion", null=True, blank=True,
                                        on_delete=models.SET_NULL, related_name="bulk_items")
    rollback_state = models.CharField(max_length=12, choices=Rollback.choices, blank=True,
                                      default=Rollback.NONE)
    rollback_version = models.ForeignKey("listings.ListingVersion", null=True, blank=True,
                                         on_delete=models.SET_NULL,
                                         related_name="bulk_rollback_items")

    @property
    def fields_set(self) -> dict:
        return self.own_set or self.change.set

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["change", "business"],
                                               name="bulk_item_unique_business")]
        indexes = [models.Index(fields=["change", "position"]),
                   models.Index(fields=["change", "state"])]

    def __str__(self) -> str:
        return f"{self.business_number}: {self.state}"


class ListingImport(TenantOwned):
    """A file of listings (CSV or Excel) read row by row: its preview says what each row would
    change, or what is wrong with it; applied, it becomes a bulk change of source "file"."""

    class Format(models.TextChoices):
        CSV = "csv", "CSV"
        XLSX = "xlsx", "Excel (XLSX)"

    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    # The member's limit when the file was imported: a member limited to part of the tree sees
    # only the imports made within it (as BulkChange.scope).
    scope = models.ForeignKey("accounts.Business", null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+")
    file_name = models.CharField(max_length=255)
    format = models.CharField(max_length=4, choices=Format.choices)
    size = models.PositiveIntegerField(default=0, help_text="Bytes.")
    columns = models.JSONField(default=list, blank=True,
                               help_text="The file's header, in its order.")
    mapping = models.JSONField(
        default=dict, blank=True,
        help_text="Each column of the file -> what it fills: business_number, business_name, "
                  "a listing field's dotted path, or \"\" when it is ignored.")
    counts = models.JSONField(default=dict, blank=True)
    bulk_change = models.OneToOneField(BulkChange, null=True, blank=True,
                                       on_delete=models.SET_NULL, related_name="listing_import")
    # Kept even if the bulk change is deleted: a file is applied once.
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["reseller", "-created_at"])]
        verbose_name = "listings file import"

    def __str__(self) -> str:
        return f"Import {self.pk} of {self.file_name}"


class ListingImportRow(TenantOwned):
    """One row of an imported file and what it would do to its location's listing."""

    class State(models.TextChoices):
        WILL_CHANGE = "will_change", "Will change"
        UNCHANGED = "unchanged", "Unchanged"
        INVALID = "invalid", "Has errors"
        UNKNOWN_BUSINESS = "unknown_business", "Unknown business"

    listing_import = models.ForeignKey(ListingImport, on_delete=models.CASCADE,
                                       related_name="rows")
    line = models.PositiveIntegerField(help_text="Its row in the file; the header is row 1.")
    business = models.ForeignKey("accounts.Business", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    business_number = models.BigIntegerField(null=True, blank=True)
    business_name = models.CharField(max_length=1000, blank=True)
    state = models.CharField(max_length=16, choices=State.choices)
    cells = models.JSONField(
        default=dict, blank=True,
        help_text="The cells that change the listing, by field: {dotted path: text}.")
    diff = models.JSONField(default=list, blank=True,
                            help_text="[{path, label, old, new}], as the listing review shows.")
    errors = models.JSONField(default=list, blank=True,
                              help_text="[{column, field, message}]: the file's column, the "
                                        "listing's field.")

    class Meta:
        ordering = ["line"]
        constraints = [models.UniqueConstraint(fields=["listing_import", "line"],
                                               name="bulk_import_row_unique_line")]
        indexes = [models.Index(fields=["listing_import", "state"])]

    def __str__(self) -> str:
        return f"Row {self.line}: {self.state}"

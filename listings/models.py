"""Mirrors of the provider's listing data: status reports and sites, categories, custom fields,
Q&A, the AI-search configuration and webhook subscriptions; and the listing editor's versions."""

import datetime as dt
from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.urls import Resolver404, resolve
from django.utils import timezone

from outbox.models import OutboxEntry
from portal.models import Mirrored
from portal.tenancy import TenantOwned


class ListingStatusReport(Mirrored):
    """The provider's status report of one location; `remote_id` is its business number."""

    remote_id = models.BigIntegerField()
    business = models.OneToOneField("accounts.Business", on_delete=models.CASCADE,
                                    related_name="status_report")
    business_name = models.CharField(max_length=1000, blank=True)
    activation_status = models.CharField(max_length=16, blank=True)
    location_status = models.CharField(max_length=32, blank=True, db_index=True)
    last_updated_text = models.CharField(max_length=64, blank=True)
    publish_listings = models.TextField(blank=True)
    errors = models.JSONField(default=list, blank=True)
    total_sites = models.PositiveIntegerField(default=0)
    synced_count = models.PositiveIntegerField(default=0)
    submitted_count = models.PositiveIntegerField(default=0)
    need_updates_count = models.PositiveIntegerField(default=0)
    opted_out_count = models.PositiveIntegerField(default=0)
    not_connected_count = models.PositiveIntegerField(default=0)
    needs_action = models.BooleanField(default=False)
    # Its sites late against their directory's usual delay, counted by the history
    # (history.ageing) each time it records, so that the needs-action ranking reads a column.
    late_sites_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="status_report_unique_remote_id")]
        indexes = [models.Index(fields=["reseller", "needs_action"]),
                   models.Index(fields=["reseller", "location_status"]),
                   # The counts summed by the dashboard, sorted on by the list (synced %) and
                   # filtered on (listing status, needs action), read from the index alone
                   # rather than rows carrying the raw report.
                   models.Index(fields=["business"], name="status_report_counts_idx",
                                include=["reseller", "removed_at", "total_sites",
                                         "synced_count", "submitted_count",
                                         "need_updates_count", "opted_out_count",
                                         "not_connected_count", "needs_action",
                                         "location_status"]),
                   # The dashboard's locations needing action: most sites late, then most
                   # sites to update first.
                   models.Index(fields=["reseller", "-late_sites_count", "-need_updates_count"],
                                name="status_report_needs_action_idx",
                                condition=models.Q(needs_action=True))]

    def __str__(self) -> str:
        return f"Status of {self.business_name or self.remote_id}"


class ListingSite(Mirrored):
    """One directory site of a location's status report."""

    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE,
                                 related_name="listing_sites")
    site_id = models.IntegerField()
    site_name = models.CharField(max_length=255)
    status = models.CharField(max_length=32, db_index=True)
    errors = models.JSONField(default=list, blank=True)
    url = models.URLField(max_length=1000, blank=True)
    # Since when the site has held its status: the moment the portal saw it change, or, while
    # it has never been seen to change (previous_status is null), its first sighting, so that
    # the status is at least that old. The mirror keeps both in the upsert that writes the
    # status (listings.mirroring), and records each change as a SiteStatusChange.
    status_since = models.DateTimeField(null=True, blank=True)
    previous_status = models.CharField(max_length=32, null=True, blank=True)
    # When the site becomes late against its directory's usual delay (history.delays): since +
    # the delay of its site and status, for a site waiting on its directory or asking for
    # action. The mirror clears it when the status changes, and the history, which knows the
    # delays, works it out again at the end of the sync run (a new status is never late
    # within a day) and whenever a delay moves.
    due_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "business", "site_id"],
                                               name="listing_site_unique")]
        indexes = [
            # The late sites (history.ageing): the current sites with a due moment, in its
            # order, so that the late ones are one range and the most late first its first
            # entries. What the list filters and sorts on is included: its count and the ids of
            # a page are read from the index alone. (Only sites with a due moment: a condition
            # on the status too would have the planner count the late sites a quarter as many
            # as they are, and join their locations the slow way.)
            models.Index(fields=["reseller", "due_at", "id"], name="listing_site_due_idx",
                         include=["business", "site_id", "status", "status_since", "site_name"],
                         condition=models.Q(removed_at__isnull=True, due_at__isnull=False)),
            # The sites whose due moment the history has still to work out (the mirror cleared
            # it): a few between a status change and the end of its sync run.
            models.Index(fields=["reseller"], name="listing_site_due_missing_idx",
                         condition=models.Q(removed_at__isnull=True, due_at__isnull=True,
                                            status__in=["Submitted", "In Progress",
                                                        "Action Required"])),
        ]
        ordering = ["site_name"]

    def __str__(self) -> str:
        return f"{self.site_name}: {self.status}"


class SiteStatusChange(TenantOwned):
    """A directory site of a location moving from one status to another, as the portal saw it
    (a sync, a provider event or a refresh asked for). Written by the mirror only when the
    status differs from the stored one; a site's first sighting is no change."""

    class Source(models.TextChoices):
        SYNC = "sync", "Sync"
        EVENT = "event", "Provider event"
        REFRESH = "refresh", "Refresh asked for"

    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE, related_name="+")
    site_id = models.IntegerField()
    site_name = models.CharField(max_length=255)
    from_status = models.CharField(max_length=32, blank=True)
    to_status = models.CharField(max_length=32, blank=True)
    at = models.DateTimeField()
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.SYNC)

    class Meta:
        indexes = [
            # One site's changes in order (how long it held each status).
            models.Index(fields=["reseller", "business", "site_id", "at"],
                         name="site_change_site_idx"),
            # A directory's changes across the account (its usual delay), and the prune.
            models.Index(fields=["reseller", "site_id", "at"], name="site_change_directory_idx"),
            models.Index(fields=["reseller", "at"], name="site_change_at_idx"),
        ]
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.site_name}: {self.from_status} → {self.to_status}"


class Category(Mirrored):
    """A category of one source and country, as the category list returns it."""

    source = models.CharField(max_length=16)
    country_code = models.CharField(max_length=2)
    remote_id = models.CharField(max_length=255)
    name = models.CharField(max_length=500)
    primary = models.BooleanField(null=True)

    class Meta:
        verbose_name_plural = "categories"
        constraints = [models.UniqueConstraint(
            fields=["reseller", "source", "country_code", "remote_id"],
            name="category_unique_remote_id")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# The provider's way of writing a day (parameters.md: dates are MM/DD/YYYY).
PROVIDER_DATE_FORMAT = "%m/%d/%Y"


class CustomField(Mirrored):
    class Type(models.TextChoices):
        TEXT = "TEXT", "Text"
        URL = "URL", "URL"
        NUMBER = "NUMBER", "Number"
        DATE = "DATE", "Date"
        DROPDOWN_SINGLE = "DROPDOWN_SINGLE", "Drop-down (one choice)"
        DROPDOWN_MULTI = "DROPDOWN_MULTI", "Drop-down (several choices)"
        TEXT_RAW = "TEXT_RAW", "Raw text"

    remote_id = models.BigIntegerField()
    field_name = models.CharField(max_length=255)
    type = models.CharField(max_length=20, choices=Type.choices)
    default_value = models.CharField(max_length=1000, blank=True)
    drop_down_options = models.JSONField(default=list, blank=True)
    field_description = models.TextField(blank=True)
    filterable = models.BooleanField(default=False)
    created_ms = models.BigIntegerField(null=True, blank=True)
    updated_ms = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="custom_field_unique_remote_id")]
        ordering = ["field_name"]

    def __str__(self) -> str:
        return self.field_name

    @property
    def default_date(self) -> dt.date | None:
        """The default of a date field as a date (the provider keeps it as MM/DD/YYYY)."""
        if self.type != self.Type.DATE or not self.default_value:
            return None
        try:
            return dt.datetime.strptime(self.default_value, PROVIDER_DATE_FORMAT).date()
        except ValueError:
            return None


class Question(Mirrored):
    """A question of a location's business-profile Q&A; its answers are `Answer` rows."""

    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE,
                                 related_name="questions")
    remote_id = models.BigIntegerField()
    question = models.TextField()
    asked_by_owner = models.BooleanField(default=False)
    answered_by_owner = models.BooleanField(default=False)
    updated_by = models.CharField(max_length=255, blank=True)
    updated_on = models.CharField(max_length=32, blank=True)
    time = models.CharField(max_length=16, blank=True)
    user_category = models.CharField(max_length=32, blank=True)
    answer_count = models.PositiveIntegerField(default=0)
    # `updated_on` and `time` as one moment, to sort by: the provider writes them as text
    # ("Jan 02, 2026", "10:00 AM") and its ids are not in date order.
    asked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="question_unique_remote_id")]
        ordering = [models.F("asked_at").desc(nulls_last=True), "-remote_id"]

    def __str__(self) -> str:
        return self.question[:80]


class Answer(Mirrored):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    remote_id = models.BigIntegerField()
    answer = models.TextField()
    answered_by_owner = models.BooleanField(default=False)
    updated_by = models.CharField(max_length=255, blank=True)
    updated_on = models.CharField(max_length=32, blank=True)
    time = models.CharField(max_length=16, blank=True)
    user_category = models.CharField(max_length=32, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)  # see Question.asked_at

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="answer_unique_remote_id")]
        ordering = [models.F("answered_at").asc(nulls_last=True), "remote_id"]

    def __str__(self) -> str:
        return self.answer[:80]


class AiSearchConfiguration(Mirrored):
    """The account's AI-search visibility configuration; `remote_id` is the account number."""

    remote_id = models.BigIntegerField()
    frequency = models.CharField(max_length=32, blank=True)
    quota = models.IntegerField(null=True, blank=True)
    billing_type = models.CharField(max_length=32, blank=True)
    themes = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="ai_search_unique_remote_id")]

    def __str__(self) -> str:
        return f"AI search ({self.frequency}, quota {self.quota})"


# parameters.md, Subscribe: the events the provider publishes, in words for the pages (an
# integrator still needs the name itself: the delivered payload carries it as `eventName`).
WEBHOOK_EVENTS = {
    "APPOINTMENT_BOOKED": "Appointment booked",
    "APPOINTMENT_CONFIRMED": "Appointment confirmed",
    "APPOINTMENT_COMPLETED": "Appointment completed",
    "APPOINTMENT_CANCELLED": "Appointment cancelled",
    "APPOINTMENT_NOSHOW": "Appointment missed (no-show)",
    "APPOINTMENT_RESCHEDULED": "Appointment rescheduled",
    "SURVEY_COMPLETED": "Survey completed",
    "LISTING_UPDATED": "Listing updated",
    "CONTACT_CREATED": "Contact created",
    "CONTACT_UPDATED": "Contact updated",
    "CONTACT_DELETED": "Contact deleted",
    "CONTACT_ACTIVITY_UPDATE": "Contact activity",
}

# The URL name of the portal's own event receiver (events.hook_urls): a subscription delivering
# there is one of the portal's live-update hooks. Found by URL, as listings imports no events.
LIVE_UPDATE_HOOK_URL_NAME = "provider_event_receive"


def webhook_event_label(event_name: str) -> str:
    return WEBHOOK_EVENTS.get(event_name, event_name)


def is_live_update_hook(webhook_url: str) -> bool:
    """Whether the URL is the portal's own event receiver (wherever PORTAL_PUBLIC_URL pointed
    when it was subscribed)."""
    public = settings.PORTAL_PUBLIC_URL
    if public and webhook_url.startswith(public + "/"):
        path = webhook_url[len(public):]
    else:
        try:
            path = urlsplit(webhook_url).path
        except ValueError:
            return False
    try:
        return resolve(path).url_name == LIVE_UPDATE_HOOK_URL_NAME
    except Resolver404:
        return False


class Subscription(Mirrored):
    """A webhook subscription of the reseller's account."""

    remote_id = models.CharField(max_length=255)
    event_name = models.CharField(max_length=64, db_index=True)
    webhook_url = models.URLField(max_length=1000)
    emails = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="subscription_unique_remote_id")]
        ordering = ["event_name", "remote_id"]

    def __str__(self) -> str:
        return f"{self.event_name} → {self.webhook_url}"

    @property
    def event_label(self) -> str:
        return webhook_event_label(self.event_name)

    @property
    def is_live_update_hook(self) -> bool:
        return is_live_update_hook(self.webhook_url)


class ListingVersion(TenantOwned):
    """One change of a location's listing made in the editor, and what became of it.

    `document` is the whole listing as it stands once this version is accepted (the last
    accepted listing with this change merged in, as the provider merges it); `payload` is the
    create-listing body that was sent, holding only what changed. Its progress is the outbox
    row's state; `accepted_at` is set when the provider accepted it, which makes it the
    listing's last accepted version (the one the next change is compared with).
    """

    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE,
                                 related_name="listing_versions")
    number = models.PositiveIntegerField(help_text="1, 2, 3... per business.")
    document = models.JSONField(default=dict)
    payload = models.JSONField(default=dict, help_text="The create-listing body sent.")
    summary = models.CharField(max_length=255, blank=True, help_text="What changed.")
    outbox_entry = models.OneToOneField("outbox.OutboxEntry", null=True, blank=True,
                                        on_delete=models.SET_NULL,
                                        related_name="listing_version")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "business", "number"],
                                               name="listing_version_unique_number")]
        indexes = [models.Index(fields=["reseller", "business", "accepted_at"])]
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"Listing version {self.number} of {self.business_id}"

    @property
    def state(self) -> str:
        """pending, sending, accepted, rejected or failed (the outbox row's state)."""
        if self.accepted_at is not None:
            return OutboxEntry.State.ACCEPTED
        return self.outbox_entry.state if self.outbox_entry else OutboxEntry.State.FAILED

    @property
    def is_open(self) -> bool:
        return self.state in OutboxEntry.OPEN_STATES

"""What each recorded action of the audit log means, in a sentence a person reads.

`accounts.services.audit_record` stores an action as a code ("outbox.listing_create.queued");
the audit log, its filter and the API show the sentence beside it. Every action the code records
has its sentence here: tests/accounts/test_audit_labels.py reads every `audit_record(...)` call
of the project and fails on an action without one.
"""

from __future__ import annotations

from django.apps import apps

ACTION_LABELS: dict[str, str] = {
    "auth.signed_in": "Signed in",
    "auth.sign_in_failed": "Sign-in refused (wrong email or password)",
    "api_token.created": "API token created",
    "api_token.revoked": "API token revoked",
    "reseller.created": "Reseller created",
    "reseller.updated": "Reseller details changed",
    "reseller.connection_updated": "Provider connection changed",
    "reseller.connection_tested": "Provider connection tested",
    "reseller.api_key_rejected": "The provider refused the API key",
    "reseller.api_key_reencrypted": "Stored API key encrypted again with the current secret",
    "brand.updated": "Brand changed (name, colours, emails or own address)",
    "brand.logo_set": "Brand logo uploaded",
    "brand.logo_removed": "Brand logo removed",
    "alert_rules.updated": "Alert rules changed",
    "notification_preferences.updated": "Notification choices changed",
    "notification.read": "Notification read",
    "notification.read_all": "All notifications marked read",
    "directory_delay.set": "Directory delay changed (days a site usually takes to publish)",
    "membership.created": "Member added",
    "membership.updated": "Member's role or limit changed",
    "membership.invited": "Member invited by email",
    "membership.removed": "Member removed",
    "business.exported": "Business list exported as CSV",
    "sync.started": "Sync started",
    "listing_status.refresh_requested": "Listing status refresh requested",
    "listing_status.refreshed": "Listing status fetched from the provider",
    "listing_status.refresh_failed": "Listing status refresh failed",
    "hierarchy.update_requested": "Hierarchy change requested",
    "ai_search.refreshed": "AI-search settings fetched from the provider",
    "survey.added": "Survey followed",
    "survey.followed": "Survey followed",
    "survey.removed": "Survey unfollowed",
    "events.receiver_enabled": "Live updates turned on (the portal's webhook receiver)",
    "events.receiver_rotated": "Live updates: the webhook receiver's secret was renewed",
    "events.receiver_disabled": "Live updates turned off (the portal's webhook receiver)",
    "events.retried": "Provider event processed again",
    "bulk_change.dry_run": "Bulk change of listings rehearsed (dry run; nothing sent)",
    "bulk_change.applied": "Bulk change of listings started: sent in waves",
    "bulk_change.paused": "Bulk change of listings paused",
    "bulk_change.resumed": "Bulk change of listings resumed",
    "bulk_change.cancelled": "Bulk change of listings cancelled",
    "bulk_change.rolled_back": "Bulk change of listings rolled back",
    "bulk_change.finished": "Bulk change of listings finished",
    "listings.exported": "Listings exported as a file (CSV or Excel)",
    "listing_import.created": "Listings file imported: preview made, nothing sent",
    "listing_import.applied": "Imported listings file made into a bulk change",
    "report_schedule.created": "Report schedule made (a client's report emailed weekly or "
                               "monthly)",
    "report_schedule.updated": "Report schedule changed",
    "report_schedule.deleted": "Report schedule deleted",
    "report_schedule.sent_now": "Report of a schedule sent now",
}

# Changes sent to the provider through the outbox record "outbox.<kind>.<what happened>".
# Their kinds, as `outbox.models.OutboxEntry.Kind` names them (a lower layer cannot import it;
# the test checks both lists agree).
OUTBOX_KIND_LABELS: dict[str, str] = {
    "listing_create": "Listing change",
    "media_add": "Media upload",
    "custom_field_create": "Custom field",
    "hierarchy_update": "Hierarchy change",
    "qna_delete_all": "Deletion of all Q&A",
    "subscribe": "Webhook subscription",
    "unsubscribe": "Webhook removal",
}
OUTBOX_EVENT_LABELS: dict[str, str] = {
    "queued": "{kind} queued for the provider",
    "sending": "{kind} being sent to the provider",
    "pending": "{kind} waiting to be sent",
    "accepted": "{kind} accepted by the provider",
    "rejected": "{kind} refused by the provider",
    "failed": "{kind} could not be sent",
    "in_doubt": "{kind} in doubt: its answer was lost, and the provider may or may not have it",
    "marked_arrived": "{kind} marked as arrived by a member (its answer was lost)",
    "retried": "{kind} sent again",
}
for _kind, _kind_label in OUTBOX_KIND_LABELS.items():
    for _event, _sentence in OUTBOX_EVENT_LABELS.items():
        ACTION_LABELS[f"outbox.{_kind}.{_event}"] = _sentence.format(kind=_kind_label)

# What the "Object" column names (`audit_record(obj=...)` stores the model's label).
OBJECT_LABELS: dict[str, str] = {
    "accounts.business": "Business",
    "accounts.reseller": "Reseller",
    "accounts.membership": "Member",
    "accounts.user": "User",
    "accounts.apitoken": "API token",
    "accounts.syncrun": "Sync run",
    "outbox.outboxentry": "Change",
    "bulk.bulkchange": "Bulk change",
}


def action_label(action: str) -> str:
    """The sentence of an action; an action without one (a test prevents it) is still shown in
    words rather than as a code."""
    label = ACTION_LABELS.get(action)
    if label is not None:
        return label
    words = action.replace("_", " ").replace(".", ": ").strip()
    return words[:1].upper() + words[1:]


def object_label(object_type: str) -> str:
    """The kind of object an event is about, in words ("Change")."""
    if not object_type:
        return ""
    label = OBJECT_LABELS.get(object_type)
    if label is not None:
        return label
    try:
        name = str(apps.get_model(object_type)._meta.verbose_name)
    except (LookupError, ValueError):
        name = object_type.rsplit(".", 1)[-1].replace("_", " ")
    return name[:1].upper() + name[1:]


def action_choices(actions: list[str]) -> list[tuple[str, str]]:
    """The actions as filter choices, in the order of their sentences."""
    return sorted(((action, action_label(action)) for action in actions),
                  key=lambda choice: choice[1].lower())

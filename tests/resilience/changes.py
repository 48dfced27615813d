"""One change of every outbox kind, and how many times the sandbox holds each of them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F

from accounts.models import Business
from listings.models import Subscription
from outbox.models import OutboxEntry
from outbox.tasks import outbox_sweep_task
from portal.tenancy import tenant_scope
from sandbox import models as sandbox

Kind = OutboxEntry.Kind


@dataclass
class Targets:
    """The businesses and subscription that the changes of one test are about."""

    listed: Business  # published at the provider: a partial listing update is valid
    asked: Business  # has questions at the provider
    other: Business  # a third location (media, hierarchy)
    removable: Subscription  # a seeded subscription, known to the portal


def targets_of(reseller, seeded) -> Targets:
    """Pick the locations from what the sandbox holds; the businesses must be mirrored."""
    account = sandbox.PartnerAccount.objects.get(account_number=reseller.account_number)
    published = sandbox.Listing.objects.filter(partner=account, fixed=True).values_list(
        "location__number", flat=True).first()
    with_questions = sandbox.Question.objects.filter(partner=account).exclude(
        location__number=published).values_list("location__number", flat=True).first()
    with tenant_scope(reseller):
        listed = Business.objects.get(remote_id=published)
        asked = Business.objects.get(remote_id=with_questions)
        other = Business.objects.filter(type=Business.Type.BUSINESS).exclude(
            pk__in=[listed.pk, asked.pk]).first()
        removable = Subscription.objects.create(
            reseller=reseller, remote_id=seeded["subscription_ids"][0],
            event_name="LISTING_UPDATED", webhook_url="https://hooks.example.com/seeded")
    return Targets(listed=listed, asked=asked, other=other, removable=removable)


def sandbox_deliveries(reseller) -> dict[str, int]:
    """How many times the sandbox holds each of the reseller's changes: 1 = delivered once.

    Deleting all Q&A and unsubscribing leave nothing to count: for them 1 means done.
    """
    account = sandbox.PartnerAccount.objects.get(account_number=reseller.account_number)
    entries = {entry.kind: entry for entry in
               OutboxEntry.unscoped.filter(reseller=reseller).select_related("business")}
    assert sorted(entries) == sorted(Kind.values), "one change of every kind"
    listing = entries[Kind.LISTING_CREATE]
    hierarchy = entries[Kind.HIERARCHY_UPDATE]
    return {
        Kind.LISTING_CREATE: sandbox.ListingSubmission.objects.filter(
            location__number=listing.business.remote_id, accepted=True,
            body__contains=listing.payload["businessInfo"]["name"]).count(),
        Kind.MEDIA_ADD: sandbox.MediaItem.objects.filter(
            partner=account, url=entries[Kind.MEDIA_ADD].payload["url"]).count(),
        Kind.CUSTOM_FIELD_CREATE: sandbox.CustomField.objects.filter(
            partner=account,
            field_name=entries[Kind.CUSTOM_FIELD_CREATE].payload["fieldName"]).count(),
        Kind.HIERARCHY_UPDATE: sum(
            mapping.levels == hierarchy.payload["levels"] for mapping in
            sandbox.HierarchyMapping.objects.filter(location__number=hierarchy.business.remote_id)),
        Kind.QNA_DELETE_ALL: int(not sandbox.Question.objects.filter(
            location__number=entries[Kind.QNA_DELETE_ALL].business.remote_id).exists()),
        Kind.SUBSCRIBE: sandbox.Subscription.objects.filter(
            partner=account, webhook_url=entries[Kind.SUBSCRIBE].payload["webhookUrl"]).count(),
        Kind.UNSUBSCRIBE: int(not sandbox.Subscription.objects.filter(
            subscription_id=entries[Kind.UNSUBSCRIBE].payload["subscriptionId"]).exists()),
    }


def duplicates(delivered: dict[str, int]) -> int:
    return sum(count - 1 for count in delivered.values() if count > 1)


def let_time_pass(seconds: float = 3600) -> None:
    """Move every open row's moments back, as if `seconds` had gone by."""
    from datetime import timedelta

    delta = timedelta(seconds=seconds)
    OutboxEntry.unscoped.filter(state__in=OutboxEntry.OPEN_STATES).update(**{
        moment: F(moment) - delta for moment in (
            "next_attempt_at", "claimed_at", "queued_at", "heartbeat_at", "request_sent_at",
            "doubt_since")})


def sweep() -> int:
    """Run the periodic sweep as a worker would, the sends it queues in this process at once;
    returns how many rows it sent.

    The result is read without Celery's check against joining inside a task: that check reads a
    process-wide flag, which a live server thread running an eager task of its own sets while it
    runs, and the test's thread would be refused at random."""
    from portal.celery import app

    eager, app.conf.task_always_eager = app.conf.task_always_eager, True
    try:
        return outbox_sweep_task.apply().get(disable_sync_subtasks=False)
    finally:
        app.conf.task_always_eager = eager

"""The provider failing for a while, then recovering: every queued change arrives exactly once.

The sandbox answers HTTP 500 to every request (its fault injection, per partner), the outbox
sends and sweeps over real HTTP, then the sandbox recovers. What the sandbox holds afterwards
shows that each change arrived once. Replies lost to timeouts (the provider did the work but
the portal never heard) are reconciled instead of sent twice.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db.models import Sum

from accounts.models import Business, HierarchyMapping
from listings.editor.services import listing_submit
from listings.models import CustomField, ListingVersion, Subscription
from listings.services import (
    custom_field_create,
    hierarchy_update,
    qna_delete_all,
    subscription_create,
    subscription_delete,
)
from media_app.models import MediaItem
from media_app.services import media_add
from outbox import services as outbox
from outbox.models import OutboxEntry
from outbox.tasks import outbox_send_task
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from tests.resilience.changes import (
    duplicates,
    let_time_pass,
    sandbox_deliveries,
    sweep,
    targets_of,
)
from tests.resilience.conftest import join_sandbox_requests, set_faults

pytestmark = pytest.mark.django_db(transaction=True)

Kind, State = OutboxEntry.Kind, OutboxEntry.State
PHOTO = "https://images.example.com/outage-front.jpg"
HOOK = "https://hooks.example.com/outage"


@pytest.fixture
def queued_sends(monkeypatch):
    """The send tasks queued on commit, kept to be run like a worker would run them."""
    queued: list[dict] = []
    monkeypatch.setattr(outbox, "_queue_send", lambda reseller_id, entry_id: queued.append(
        {"reseller_id": reseller_id, "entry_id": entry_id}))
    return queued


def queue_every_kind(reseller, seeded) -> None:
    """One change of each outbox kind, saved through the services the pages use."""
    to = targets_of(reseller, seeded)
    with tenant_scope(reseller):
        listing_submit(tenant=reseller, actor=None, business=to.listed,
                       payload={"businessInfo": {"name": "Harbour Lights Outage"}})
        media_add(tenant=reseller, actor=None, business=to.other, url=PHOTO,
                  category="EXTERIOR", description="Front", media_format="PHOTO")
        custom_field_create(tenant=reseller, actor=None, field_name="Outage Tier", type="TEXT")
        hierarchy_update(tenant=reseller, actor=None, business=to.other,
                         levels={"Region": "North", "District": "N4"})
        qna_delete_all(tenant=reseller, actor=None, business=to.asked)
        subscription_create(tenant=reseller, actor=None, webhook_url=HOOK,
                            event_name="SURVEY_COMPLETED")
        subscription_delete(tenant=reseller, actor=None, subscription=to.removable)


@pytest.fixture
def synced_reseller(partner_reseller):
    reseller, seeded = partner_reseller("outage-partner-key-0001", locations=4)
    # Q&A too: the portal deletes only questions it knows of.
    call_command("sync", reseller.slug, "--only", "businesses", "qna", stdout=io.StringIO(),
                 stderr=io.StringIO())
    return reseller, seeded


@pytest.mark.slow
def test_every_change_queued_during_a_provider_outage_is_delivered_once(
        synced_reseller, queued_sends, figures):
    reseller, seeded = synced_reseller
    set_faults(reseller, error_rate=1.0)
    queue_every_kind(reseller, seeded)
    changes = len(Kind.values)
    assert len(queued_sends) == changes

    # The queued sends run while every request fails, then the sweep twice more. A 500 may
    # come after the provider did the work: the subscription, which cannot be read back, is
    # in doubt at once; the others are read back (or are harmless to repeat) once it answers.
    for message in queued_sends:
        outbox_send_task.apply(kwargs=message)
    subscription = OutboxEntry.unscoped.get(kind=Kind.SUBSCRIBE)
    assert subscription.state == State.IN_DOUBT
    for _ in range(2):
        let_time_pass()
        assert sweep() == changes - 1
    assert set(OutboxEntry.unscoped.exclude(kind=Kind.SUBSCRIBE)
               .values_list("state", flat=True)) == {State.PENDING}
    assert set(sandbox_deliveries(reseller).values()) == {0}  # nothing arrived yet

    set_faults(reseller, error_rate=0.0)
    let_time_pass()
    assert sweep() == changes - 1
    assert sweep() == 0  # nothing left: no change is sent twice
    # A member checks the provider has no such subscription, and sends it again.
    with tenant_scope(reseller):
        outbox.outbox_retry(tenant=reseller, actor=None, entry=subscription)
    outbox_send_task.apply(kwargs=queued_sends[-1])

    rows = OutboxEntry.unscoped.filter(reseller=reseller)
    states = {row.kind: (row.state, row.provider_code, row.provider_message) for row in rows}
    assert states == {kind: (State.ACCEPTED, None, "") for kind in Kind.values}
    delivered = sandbox_deliveries(reseller)
    assert delivered == {kind: 1 for kind in Kind.values}
    # The portal's own side followed, once.
    with tenant_scope(reseller):
        assert MediaItem.objects.filter(url=PHOTO).count() == 1
        assert CustomField.objects.filter(field_name="Outage Tier").count() == 1
        assert ListingVersion.objects.get().accepted_at is not None
        assert dict(HierarchyMapping.objects.values_list("level_name", "level_value")) == {
            "Region": "North", "District": "N4"}
        assert Subscription.objects.filter(webhook_url=HOOK, removed_at=None).count() == 1
        assert Subscription.objects.get(remote_id=seeded["subscription_ids"][0]).removed_at

    attempts = rows.aggregate(total=Sum("attempts"))["total"]
    figures.update(queued=changes, delivered=sum(delivered.values()),
                   duplicates=duplicates(delivered), attempts=attempts,
                   failed_attempts=attempts - changes)


@pytest.mark.slow
def test_changes_whose_replies_were_lost_are_reconciled_not_sent_twice(
        partner_reseller, queued_sends, settings, figures):
    reseller, seeded = partner_reseller("lost-replies-partner-key", locations=3)
    account = sandbox.PartnerAccount.objects.get(account_number=reseller.account_number)
    number = sandbox.Listing.objects.filter(partner=account, fixed=True).values_list(
        "location__number", flat=True).first()
    with tenant_scope(reseller):
        business = Business.objects.create(reseller=reseller, remote_id=number, name="Before",
                                           tree_path=f"/{number}/")
        media_add(tenant=reseller, actor=None, business=business, url=PHOTO,
                  category="EXTERIOR", description="Front", media_format="PHOTO")
        listing_submit(tenant=reseller, actor=None, business=business,
                       payload={"businessInfo": {"name": "Lost Reply Diner"}})
        custom_field_create(tenant=reseller, actor=None, field_name="Lost Reply", type="TEXT")
    sent = OutboxEntry.unscoped.filter(reseller=reseller)

    # The provider does the work but answers after the portal stopped waiting, and reading
    # back times out too: the outcome stays unknown.
    settings.PROVIDER_READ_TIMEOUT = 0.3
    set_faults(reseller, latency_ms=2500)
    for message in queued_sends:
        outbox_send_task.apply(kwargs=message)
        join_sandbox_requests()  # the request the portal gave up on is served meanwhile
    assert set(sent.values_list("state", "in_doubt")) == {(State.PENDING, True)}

    set_faults(reseller, latency_ms=0)
    let_time_pass()
    assert sweep() == len(queued_sends)
    assert set(sent.values_list("state", flat=True)) == {State.ACCEPTED}
    assert sweep() == 0

    delivered = {
        "media": sandbox.MediaItem.objects.filter(partner=account, url=PHOTO).count(),
        "listing": sandbox.ListingSubmission.objects.filter(
            location__number=number, accepted=True, body__contains="Lost Reply Diner").count(),
        "custom_field": sandbox.CustomField.objects.filter(partner=account,
                                                           field_name="Lost Reply").count(),
    }
    assert delivered == {"media": 1, "listing": 1, "custom_field": 1}
    with tenant_scope(reseller):
        assert MediaItem.objects.filter(url=PHOTO).count() == 1
        assert Business.objects.get(pk=business.pk).name == "Lost Reply Diner"
    figures.update(queued=len(queued_sends), delivered=sum(delivered.values()),
                   duplicates=duplicates(delivered),
                   attempts=sent.aggregate(total=Sum("attempts"))["total"])

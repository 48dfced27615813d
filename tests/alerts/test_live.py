"""Alerts from real syncs and sends against the embedded provider over HTTP: a rejected key
fails the run and is told once, whatever the number of syncs after it; a rise in sites needing
action is told after the sync that records it and not again after the next; a listing change
the provider rejects is told by email at once to the member who chose it."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import Business, Membership, Reseller, Role
from alerts.kinds import Channel, Kind
from alerts.models import Alert, Notification
from history.models import BusinessDay
from listings.editor.services import listing_submit
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from tests.alerts.conftest import day_row, prefer
from tests.factories import BusinessFactory, MembershipFactory, UserFactory
from tests.live import connect_reseller

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.SYNC_FETCH_THREADS = 1
    settings.DATA_DIR = tmp_path


def sync(reseller, *only: str) -> dict:
    out = io.StringIO()
    call_command("sync", reseller.slug, "--json", *(["--only", *only] if only else []),
                 stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def members(reseller) -> dict[str, Membership]:
    return {role: MembershipFactory(reseller=reseller, role=role,
                                    user=UserFactory(email=f"{role}@agency.example"))
            for role in (Role.OWNER, Role.MANAGER, Role.VIEWER)}


def test_a_rejected_key_fails_the_sync_and_is_told_once(live_server):
    reseller, _ = connect_reseller(live_server, key="alerts-live-key-0001", locations=2, seed=3,
                                   api_key="a-key-the-provider-never-issued")
    team = members(reseller)

    for _ in range(2):
        with pytest.raises(CommandError, match="rejected the API key"):
            sync(reseller)

    assert Reseller.objects.get(pk=reseller.pk).status == Reseller.Status.KEY_REJECTED
    key = Alert.unscoped.get(reseller=reseller, kind=Kind.KEY_REJECTED)
    assert key.title == "The provider rejected the API key"
    # Each failed run is its own cause; the key, the same after the second run, is told once.
    runs = Alert.unscoped.filter(reseller=reseller, kind=Kind.SYNC_FAILED)
    assert runs.count() == 2
    assert "rejected the API key" in runs.first().message
    # The owner chose nothing: a rejected key reaches them by email at once.
    assert [m.to for m in mail.outbox if "API key" in m.subject] == [["owner@agency.example"]]
    assert Notification.unscoped.filter(alert=key).count() == len(team)


def test_a_rise_is_told_after_the_sync_that_records_it_and_not_after_the_next(live_server):
    reseller, seeded = connect_reseller(live_server, key="alerts-live-key-0002", locations=4,
                                        seed=5)
    members(reseller)
    assert sync(reseller)["status"] == "succeeded"
    with tenant_scope(reseller):
        today = BusinessDay.objects.filter(business__type=Business.Type.BUSINESS,
                                           need_updates__gt=0).first()
        assert today is not None, "the seeded account has a location with sites to fix"
        # A week ago, that location had none to fix.
        day_row(today.business, timezone.localdate() - timedelta(days=7), need_updates=0)
    Alert.unscoped.filter(reseller=reseller).delete()

    assert sync(reseller, "listing_status")["status"] == "succeeded"
    rising = Alert.unscoped.filter(reseller=reseller, kind=Kind.NEEDS_ACTION_RISING)
    assert [a.business_id for a in rising] == [today.business_id]

    assert sync(reseller, "listing_status")["status"] == "succeeded"
    assert Alert.unscoped.filter(reseller=reseller, kind=Kind.NEEDS_ACTION_RISING).count() == 1


def test_a_listing_change_the_provider_rejects_is_emailed_at_once(live_server):
    reseller, seeded = connect_reseller(live_server, key="alerts-live-key-0003", locations=2,
                                        seed=1)
    team = members(reseller)
    remote = sandbox.Business.objects.get(number=seeded["location_numbers"][0])
    location = BusinessFactory(reseller=reseller, remote_id=remote.number, name=remote.name)
    prefer(team[Role.MANAGER], Kind.LISTING_REJECTED, Channel.EMAIL)

    def send_all():
        for entry in OutboxEntry.objects.filter(state=OutboxEntry.State.PENDING):
            outbox.outbox_send(tenant=reseller, entry_id=entry.pk)

    with tenant_scope(reseller):
        listing_submit(tenant=reseller, actor=None, business=location, payload={
            "businessInfo": {"name": location.name},
            "additionalInfo": {"businessStatus": "Open"}})
        send_all()
        # Once fixed, the provider refuses to change the business status (its code 2511).
        listing_submit(tenant=reseller, actor=None, business=location, payload={
            "businessInfo": {"name": location.name},
            "additionalInfo": {"businessStatus": "Permanently Closed"}})
        send_all()

    alert = Alert.unscoped.get(reseller=reseller, kind=Kind.LISTING_REJECTED)
    assert alert.business_id == location.pk
    assert "(code 2511)" in alert.message
    emails = [m for m in mail.outbox if m.subject.startswith("Listing change rejected")]
    assert [m.to for m in emails] == [["manager@agency.example"]]
    assert location.name in emails[0].body
    # Viewers follow in the portal; the owner waits for the digest.
    channels = dict(Notification.unscoped.filter(alert=alert)
                    .values_list("membership__role", "channel"))
    assert channels == {Role.OWNER: Channel.DIGEST, Role.MANAGER: Channel.EMAIL,
                        Role.VIEWER: Channel.PORTAL}

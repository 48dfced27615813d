"""The outbox against the sandbox over HTTP: accepted, rejected, retried, failed, reconciled."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import Business, Reseller
from media_app.models import MediaItem
from media_app.services import media_add
from outbox import services as outbox
from outbox.models import OutboxEntry
from outbox.tasks import outbox_sweep_task
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "outbox-test-partner-key"
PHOTO = "https://images.example.com/storefront.jpg"


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path


@pytest.fixture
def location(live_server):
    seeded = seed_partner(api_key=KEY, locations=2, seed=3, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    return BusinessFactory(reseller=reseller, remote_id=seeded["location_numbers"][0])



def queue_photo(location, url=PHOTO, media_format="PHOTO"):
    with tenant_scope(location.reseller):
        return media_add(tenant=location.reseller, actor=None, business=location, url=url,
                         category="EXTERIOR", description="Storefront", media_format=media_format)


def send(location, entry):
    with tenant_scope(location.reseller):
        outbox.outbox_send(tenant=location.reseller, entry_id=entry.pk)
        entry.refresh_from_db()
    return entry


def test_the_change_and_its_row_commit_together(location):
    with pytest.raises(RuntimeError), transaction.atomic():
        queue_photo(location)
        raise RuntimeError("the user's transaction fails")
    assert not OutboxEntry.unscoped.exists()


def test_an_accepted_upload_is_mirrored(location):
    entry = send(location, queue_photo(location))
    assert entry.state == OutboxEntry.State.ACCEPTED
    with tenant_scope(location.reseller):
        item = MediaItem.objects.get(url=PHOTO)
    assert item.remote_id == entry.provider_reply[0]["mediaId"]
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_a_rejected_upload_keeps_the_providers_code_and_message(location):
    entry = send(location, queue_photo(location, media_format="GIF"))
    assert entry.state == OutboxEntry.State.REJECTED
    assert entry.provider_code == 2174
    assert entry.provider_message
    assert not sandbox.MediaItem.objects.filter(url=PHOTO).exists()


def test_a_failing_provider_is_retried_then_failed_then_retryable(location, settings):
    settings.OUTBOX_MAX_ATTEMPTS = 2
    sandbox.PartnerAccount.objects.update(error_rate=1.0)
    entry = send(location, queue_photo(location))
    assert entry.state == OutboxEntry.State.PENDING
    assert entry.next_attempt_at > timezone.now()
    assert "500" in entry.last_error or entry.last_error

    OutboxEntry.unscoped.filter(pk=entry.pk).update(next_attempt_at=timezone.now())
    entry = send(location, entry)
    assert entry.state == OutboxEntry.State.FAILED and entry.attempts == 2

    sandbox.PartnerAccount.objects.update(error_rate=0.0)
    with tenant_scope(location.reseller):
        outbox.outbox_retry(tenant=location.reseller, actor=None, entry=entry)
    entry.refresh_from_db()
    assert (entry.state, entry.attempts) == (OutboxEntry.State.PENDING, 0)
    assert send(location, entry).state == OutboxEntry.State.ACCEPTED


def test_the_sweep_sends_rows_whose_task_was_lost(location, monkeypatch):
    monkeypatch.setattr(outbox, "_queue_send", lambda *a: None)  # the broker lost it
    entry = queue_photo(location)
    assert OutboxEntry.unscoped.get(pk=entry.pk).state == OutboxEntry.State.PENDING
    assert outbox_sweep_task() == 1
    assert OutboxEntry.unscoped.get(pk=entry.pk).state == OutboxEntry.State.ACCEPTED
    assert outbox_sweep_task() == 0  # nothing due: sent once


def test_a_row_left_sending_by_a_dead_worker_is_sent_again(location, monkeypatch, settings):
    monkeypatch.setattr(outbox, "_queue_send", lambda *a: None)
    entry = queue_photo(location)
    stale = timezone.now() - timedelta(seconds=settings.OUTBOX_SENDING_STALE_SECONDS + 1)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(state=OutboxEntry.State.SENDING,
                                                    claimed_at=stale, attempts=1)
    assert outbox_sweep_task() == 1
    assert OutboxEntry.unscoped.get(pk=entry.pk).state == OutboxEntry.State.ACCEPTED


def test_an_unknown_outcome_is_reconciled_not_resent(location, monkeypatch):
    """The upload reached the provider but the reply was lost: reading back finds it."""
    from media_app.outbox_handlers import MediaAdd
    from provider import Transient

    real_send = MediaAdd.send

    def send_then_lose_reply(self, client, entry):
        real_send(self, client, entry)
        raise Transient(None, "read timed out", None, operation="add_media",
                        outcome_unknown=True)

    monkeypatch.setattr(MediaAdd, "send", send_then_lose_reply)
    entry = send(location, queue_photo(location))
    assert entry.state == OutboxEntry.State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_a_send_stopped_by_the_time_limit_is_tried_again_reading_back_first(location,
                                                                           monkeypatch):
    """The worker's soft time limit lands mid-send: the row waits for another attempt, in doubt,
    and that attempt finds the upload instead of sending it twice."""
    from celery.exceptions import SoftTimeLimitExceeded

    from media_app.outbox_handlers import MediaAdd

    real_send = MediaAdd.send

    def send_then_run_out_of_time(self, client, entry):
        real_send(self, client, entry)
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(MediaAdd, "send", send_then_run_out_of_time)
    entry = send(location, queue_photo(location))
    assert entry.state == OutboxEntry.State.PENDING and entry.in_doubt
    assert "longer than a task may run" in entry.last_error
    monkeypatch.setattr(MediaAdd, "send", real_send)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(next_attempt_at=timezone.now())
    entry = send(location, entry)
    assert entry.state == OutboxEntry.State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_a_rejected_key_fails_the_row_and_flags_the_reseller(location):
    sandbox.PartnerAccount.objects.update(key_hash="0" * 64)
    entry = send(location, queue_photo(location))
    assert entry.state == OutboxEntry.State.FAILED
    assert Reseller.objects.get(pk=location.reseller.pk).status == Reseller.Status.KEY_REJECTED
    assert Business.unscoped.filter(pk=location.pk).exists()

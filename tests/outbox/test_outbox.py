"""The outbox against the sandbox over HTTP: accepted, rejected, retried, failed, and, when a
request's answer was lost, read back on evidence or left in doubt for a person."""

from datetime import timedelta

import pytest
import requests
from django.db import transaction
from django.utils import timezone
from urllib3.exceptions import MaxRetryError, NewConnectionError

from accounts.models import AuditEvent, Business, Reseller
from listings.editor.services import ListingBusy, listing_submit
from listings.models import ListingVersion
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
State = OutboxEntry.State


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path
    # Read back at once: the window a request may still be on its way is tested on its own.
    settings.OUTBOX_IN_FLIGHT_SECONDS = 0


@pytest.fixture
def eager():
    """Tasks run where they are queued (the sweep's sends are sent within the sweep)."""
    from portal.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def location(live_server):
    seeded = seed_partner(api_key=KEY, locations=2, seed=3, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    remote = sandbox.Business.objects.get(number=seeded["location_numbers"][0])
    return BusinessFactory(reseller=reseller, remote_id=remote.number, name=remote.name)


def queue_photo(location, url=PHOTO, media_format="PHOTO"):
    with tenant_scope(location.reseller):
        return media_add(tenant=location.reseller, actor=None, business=location, url=url,
                         category="EXTERIOR", description="Storefront", media_format=media_format)


def queue_listing(location, **info):
    with tenant_scope(location.reseller):
        version = listing_submit(tenant=location.reseller, actor=None, business=location,
                                 payload={"businessInfo": {"name": location.name, **info}})
    return version.outbox_entry


def send(location, entry):
    with tenant_scope(location.reseller):
        outbox.outbox_send(tenant=location.reseller, entry_id=entry.pk)
    entry.refresh_from_db()
    return entry


def left_by_a_dead_worker(entry, *, request_left: bool, seconds_ago: float = 600):
    """The row as a worker killed mid-send leaves it: `sending`, silent since, with or without
    the mark that its request left."""
    silent_since = timezone.now() - timedelta(seconds=seconds_ago)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(
        state=State.SENDING, claimed_at=silent_since, heartbeat_at=silent_since, attempts=1,
        request_sent_at=silent_since if request_left else None)


def submissions(location, name=None):
    rows = sandbox.ListingSubmission.objects.filter(location__number=location.remote_id,
                                                    accepted=True)
    return rows.filter(body__contains=name).count() if name else rows.count()


def test_the_change_and_its_row_commit_together(location):
    with pytest.raises(RuntimeError), transaction.atomic():
        queue_photo(location)
        raise RuntimeError("the user's transaction fails")
    assert not OutboxEntry.unscoped.exists()


def test_an_accepted_upload_is_mirrored(location):
    entry = send(location, queue_photo(location))
    assert entry.state == State.ACCEPTED
    assert entry.request_sent_at is not None  # the moment it left was recorded
    with tenant_scope(location.reseller):
        item = MediaItem.objects.get(url=PHOTO)
    assert item.remote_id == entry.provider_reply[0]["mediaId"]
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_a_rejected_upload_keeps_the_providers_code_and_message(location):
    entry = send(location, queue_photo(location, media_format="GIF"))
    assert entry.state == State.REJECTED
    assert entry.provider_code == 2174
    assert entry.provider_message
    assert not sandbox.MediaItem.objects.filter(url=PHOTO).exists()
    # The provider answered that it did nothing: no request is left in doubt.
    assert entry.request_sent_at is None and not entry.in_doubt


def test_an_unreachable_provider_is_retried_then_failed_then_retryable(location, settings,
                                                                      monkeypatch):
    """Refused connections never reach the provider: retried, then failed, never in doubt."""
    settings.OUTBOX_MAX_ATTEMPTS = 2

    def refuse(self, method, url, **kwargs):
        raise requests.ConnectionError(MaxRetryError(None, url, NewConnectionError(
            None, "Connection refused")))

    with monkeypatch.context() as patch:
        patch.setattr(requests.Session, "request", refuse)
        entry = send(location, queue_photo(location))
        assert (entry.state, entry.in_doubt) == (State.PENDING, False)
        assert entry.next_attempt_at > timezone.now()
        assert "ConnectionError" in entry.last_error
        OutboxEntry.unscoped.filter(pk=entry.pk).update(next_attempt_at=timezone.now())
        entry = send(location, entry)
    assert (entry.state, entry.attempts, entry.in_doubt) == (State.FAILED, 2, False)

    with tenant_scope(location.reseller):
        outbox.outbox_retry(tenant=location.reseller, actor=None, entry=entry)
    entry.refresh_from_db()
    assert (entry.state, entry.attempts) == (State.PENDING, 0)
    assert send(location, entry).state == State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_a_failing_provider_leaves_an_upload_in_doubt_until_a_person_decides(location,
                                                                             settings):
    """A 5xx after an upload left may mean it was stored: it is never called failed, nor sent
    again blindly; unable to read the media back, it ends in doubt."""
    settings.OUTBOX_MAX_ATTEMPTS = 2
    sandbox.PartnerAccount.objects.update(error_rate=1.0)
    entry = send(location, queue_photo(location))
    assert (entry.state, entry.in_doubt) == (State.PENDING, True)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(next_attempt_at=timezone.now())
    entry = send(location, entry)
    assert entry.state == State.IN_DOUBT
    assert "may or may not have this change" in entry.provider_message
    assert not entry.is_open

    sandbox.PartnerAccount.objects.update(error_rate=0.0)
    with tenant_scope(location.reseller):
        outbox.outbox_retry(tenant=location.reseller, actor=None, entry=entry)
    assert send(location, entry).state == State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_the_sweep_queues_again_a_send_whose_task_was_lost(location, eager, settings,
                                                           monkeypatch):
    queued = []
    with monkeypatch.context() as patch:
        patch.setattr(outbox, "_queue_send", lambda *args: queued.append(args))  # lost
        entry = queue_photo(location)
    assert queued and OutboxEntry.unscoped.get(pk=entry.pk).state == State.PENDING
    assert outbox_sweep_task() == 0  # its task may still be waiting in the broker
    OutboxEntry.unscoped.filter(pk=entry.pk).update(
        queued_at=timezone.now() - timedelta(seconds=settings.OUTBOX_REQUEUE_SECONDS + 1))
    assert outbox_sweep_task() == 1
    assert OutboxEntry.unscoped.get(pk=entry.pk).state == State.ACCEPTED
    assert outbox_sweep_task() == 0  # nothing due: sent once
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_the_sweep_queues_each_due_row_as_a_task_of_its_own_a_batch_at_a_time(
        location, settings, monkeypatch):
    settings.OUTBOX_SWEEP_BATCH = 2
    monkeypatch.setattr(outbox, "_queue_send", lambda *args: None)
    entries = [queue_photo(location, url=f"https://images.example.com/{n}.jpg")
               for n in range(5)]
    OutboxEntry.unscoped.update(queued_at=None)  # as if the broker had refused them
    sent = []
    monkeypatch.setattr(outbox.tasks.outbox_send_task, "delay",
                        lambda **kwargs: sent.append(kwargs["entry_id"]))
    assert [outbox.outbox_sweep(), outbox.outbox_sweep(), outbox.outbox_sweep(),
            outbox.outbox_sweep()] == [2, 2, 1, 0]
    assert sorted(sent) == sorted(entry.pk for entry in entries)


def test_a_send_whose_request_never_left_is_sent_again_not_taken_as_arrived(location):
    """A worker killed while it waited for a rate-limit slot: the location's sites are all
    busy at the provider from earlier changes, which once passed for evidence that the change
    had arrived. Without the mark that its request left, it is simply sent."""
    entry = queue_listing(location, websiteUrl="https://never-left.example.com")
    remote = sandbox.Business.objects.get(number=location.remote_id)
    sandbox.SiteStatus.objects.filter(location=remote).update(status="In Progress",
                                                              updated_at=timezone.now())
    left_by_a_dead_worker(entry, request_left=False)
    entry = send(location, entry)
    assert entry.state == State.ACCEPTED
    assert submissions(location, "never-left.example.com") == 1


def test_a_dead_workers_upload_that_arrived_is_read_back_not_sent_twice(location):
    entry = queue_photo(location)
    with tenant_scope(location.reseller):
        entry = send(location, entry)  # it arrives...
    OutboxEntry.unscoped.filter(pk=entry.pk).update(state=State.PENDING)
    left_by_a_dead_worker(entry, request_left=True)  # ...and the worker dies
    MediaItem.unscoped.filter(url=PHOTO).delete()  # never mirrored: its answer was lost
    entry = send(location, entry)
    assert entry.state == State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1
    assert entry.attempts == 2


def test_a_dead_workers_rename_that_arrived_is_read_back_by_its_name(location):
    entry = queue_listing(location, name="Renamed By The Lost Request")
    OutboxEntry.unscoped.filter(pk=entry.pk).update(state=State.PENDING)
    with tenant_scope(location.reseller):
        # The request arrives at the provider, then the worker dies before it hears back.
        from accounts.provider_access import provider_client
        from listings.editor.outbox_handlers import ListingCreate
        with provider_client(tenant=location.reseller) as client:
            ListingCreate().send(client, entry)
    left_by_a_dead_worker(entry, request_left=True)
    entry = send(location, entry)
    assert entry.state == State.ACCEPTED
    assert submissions(location) == 1
    assert Business.unscoped.get(pk=location.pk).name == "Renamed By The Lost Request"


def test_a_change_the_status_report_cannot_tell_is_in_doubt_and_never_accepted(location):
    """The request may have left, the location changed since (its sites move on), and the
    change sets nothing the report shows: in doubt, for a person to decide."""
    entry = queue_listing(location, websiteUrl="https://maybe-arrived.example.com")
    remote = sandbox.Business.objects.get(number=location.remote_id)
    left_by_a_dead_worker(entry, request_left=True)
    sandbox.SiteStatus.objects.filter(location=remote).update(updated_at=timezone.now())
    entry = send(location, entry)
    assert entry.state == State.IN_DOUBT
    assert submissions(location) == 0  # not sent again behind anyone's back
    version = ListingVersion.unscoped.get(outbox_entry=entry)
    assert version.state == State.IN_DOUBT and version.accepted_at is None
    with tenant_scope(location.reseller), pytest.raises(ListingBusy, match="in doubt"):
        listing_submit(tenant=location.reseller, actor=None, business=location,
                       payload={"businessInfo": {"name": location.name}})


def test_a_change_in_doubt_marked_as_arrived_is_accepted_with_who_said_so(location):
    from tests.factories import UserFactory

    person = UserFactory()
    entry = queue_listing(location, websiteUrl="https://checked.example.com")
    left_by_a_dead_worker(entry, request_left=True)
    remote = sandbox.Business.objects.get(number=location.remote_id)
    sandbox.SiteStatus.objects.filter(location=remote).update(updated_at=timezone.now())
    entry = send(location, entry)
    assert entry.state == State.IN_DOUBT
    with tenant_scope(location.reseller):
        outbox.outbox_mark_arrived(tenant=location.reseller, actor=person, entry=entry)
        with pytest.raises(ValueError, match="in doubt"):
            outbox.outbox_mark_arrived(tenant=location.reseller, actor=person, entry=entry)
    entry.refresh_from_db()
    assert entry.state == State.ACCEPTED
    assert str(person) in entry.provider_message
    assert ListingVersion.unscoped.get(outbox_entry=entry).accepted_at is not None
    assert AuditEvent.unscoped.filter(action="outbox.listing_create.marked_arrived",
                                      actor=person, object_id=str(entry.pk)).exists()
    assert submissions(location) == 0


def test_a_change_whose_location_has_not_changed_since_it_left_did_not_arrive(location,
                                                                            settings):
    """The status report's last update is older than the request by more than the clock skew
    allowed: the create never arrived, and is sent."""
    settings.OUTBOX_PROVIDER_CLOCK_SKEW_SECONDS = 60
    remote = sandbox.Business.objects.get(number=location.remote_id)
    long_ago = timezone.now() - timedelta(days=2)
    sandbox.SiteStatus.objects.filter(location=remote).update(updated_at=long_ago,
                                                              next_change_at=None)
    sandbox.Business.objects.filter(pk=remote.pk).update(last_updated=long_ago)
    entry = queue_listing(location, websiteUrl="https://did-not-arrive.example.com")
    left_by_a_dead_worker(entry, request_left=True)
    entry = send(location, entry)
    assert entry.state == State.ACCEPTED
    assert submissions(location, "did-not-arrive.example.com") == 1


def test_a_row_in_doubt_is_not_read_back_while_its_request_may_be_on_its_way(location,
                                                                            settings):
    settings.OUTBOX_IN_FLIGHT_SECONDS = 45
    entry = queue_photo(location)
    left_by_a_dead_worker(entry, request_left=True, seconds_ago=60)  # silent for a minute...
    OutboxEntry.unscoped.filter(pk=entry.pk).update(
        request_sent_at=timezone.now() - timedelta(seconds=10))  # ...its request left 10 s ago
    entry = send(location, entry)
    assert (entry.state, entry.in_doubt) == (State.PENDING, True)
    wait = (entry.next_attempt_at - entry.doubt_since).total_seconds()
    assert wait == pytest.approx(45, abs=1)
    assert not sandbox.MediaItem.objects.filter(url=PHOTO).exists()  # nothing sent meanwhile


def test_a_worker_that_lost_its_claim_does_not_record_over_the_new_one(location):
    from provider import Transient

    entry = queue_photo(location)
    with tenant_scope(location.reseller):
        assert outbox._claim(entry.pk) is not None
        mine = OutboxEntry.objects.get(pk=entry.pk)
        later = timezone.now() + timedelta(seconds=1)
        OutboxEntry.objects.filter(pk=entry.pk).update(claimed_at=later)  # another worker's
        outbox._retry_later(mine, Transient(None, "timed out", None))
        assert OutboxEntry.objects.get(pk=entry.pk).state == State.SENDING  # left to it
        # An acceptance is still recorded: it is the one thing a lost claim knows better.
        outbox._accept(mine, outbox.handler_for(mine.kind), [])
    assert OutboxEntry.unscoped.get(pk=entry.pk).state == State.ACCEPTED


def test_a_send_stopped_by_the_time_limit_after_it_left_is_read_back_first(location,
                                                                        monkeypatch):
    """The worker's soft time limit lands after the upload left: in doubt, and the next
    attempt finds the upload instead of sending it twice."""
    from celery.exceptions import SoftTimeLimitExceeded

    from media_app.outbox_handlers import MediaAdd

    real_send = MediaAdd.send

    def send_then_run_out_of_time(self, client, entry):
        real_send(self, client, entry)
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(MediaAdd, "send", send_then_run_out_of_time)
    entry = send(location, queue_photo(location))
    assert entry.state == State.PENDING and entry.in_doubt
    assert "longer than a task may run" in entry.last_error
    monkeypatch.setattr(MediaAdd, "send", real_send)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(next_attempt_at=timezone.now())
    entry = send(location, entry)
    assert entry.state == State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=PHOTO).count() == 1


def test_a_row_that_cannot_record_its_request_leaving_sends_nothing(location, monkeypatch):
    """The database refuses the mark: the request is not sent, and the row, left sending
    without it, is later sent as a row whose request never left."""
    from django.db import OperationalError

    def refuse(self, operation):
        raise OperationalError("the server closed the connection")

    monkeypatch.setattr(outbox._SendRecorder, "leaving", refuse)
    entry = queue_photo(location)
    from provider import WriteNotRecorded

    with tenant_scope(location.reseller), pytest.raises(WriteNotRecorded):
        outbox.outbox_send(tenant=location.reseller, entry_id=entry.pk)
    row = OutboxEntry.unscoped.get(pk=entry.pk)
    assert (row.state, row.request_sent_at) == (State.SENDING, None)
    assert not sandbox.MediaItem.objects.filter(url=PHOTO).exists()


def test_a_rejected_key_fails_the_row_and_flags_the_reseller(location):
    sandbox.PartnerAccount.objects.update(key_hash="0" * 64)
    entry = send(location, queue_photo(location))
    assert entry.state == State.FAILED
    assert Reseller.objects.get(pk=location.reseller.pk).status == Reseller.Status.KEY_REJECTED
    assert Business.unscoped.filter(pk=location.pk).exists()

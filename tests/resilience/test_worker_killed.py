"""A Celery worker killed (SIGKILL, with its pool child) in the middle of a sync and of an
outbox send: after a new worker starts, the work completes, and only once.

Real processes: `celery -A portal worker` on the test database and the Redis broker, calling
the sandbox of the live server, which answers slowly so that there is a middle to kill in.
Tasks acknowledge late, so the message the dead worker held goes back to the queue (after the
broker's visibility timeout, a few seconds for these workers; see worker_settings.py).
"""

from __future__ import annotations

import time

import pytest

from accounts.models import SyncRun
from media_app.models import MediaItem
from media_app.services import media_add
from outbox.models import OutboxEntry
from outbox.tasks import outbox_sweep_task
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sync.services import mirror_counts
from tests.factories import BusinessFactory
from tests.resilience.conftest import (
    broker_backlog,
    broker_unacknowledged,
    mirror_report,
    set_faults,
    wait_for,
)
from tests.resilience.runs import LOCATIONS, finished, half_way, sync_in_the_background

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_sync_whose_worker_is_killed_completes_once_after_a_restart(
        partner_reseller, celery_worker, figures):
    reseller, seeded = partner_reseller("killed-sync-partner-key", locations=LOCATIONS,
                                        latency_ms=150)
    first = celery_worker("first")
    run = sync_in_the_background(reseller)
    progress = wait_for(lambda: half_way(run), timeout=60, what="the sync to be half-way")
    held = broker_unacknowledged()
    first.kill()
    killed = time.monotonic()
    assert held == 1  # the dead worker was running a step it will never acknowledge

    second = celery_worker("second")
    outcome = wait_for(lambda: finished(run), timeout=90, what="the sync to finish")
    assert outcome.status == SyncRun.Status.SUCCEEDED, outcome.errors
    assert second.received_twice() >= 1  # the step the dead worker held ran again
    assert (outcome.done, outcome.failed) == (outcome.total, 0)  # each location counted once
    mirror = mirror_report(reseller)
    assert mirror["problems"] == []
    with tenant_scope(reseller):
        assert outcome.counts == mirror_counts(reseller)
    assert outcome.counts["locations"] == LOCATIONS
    figures.update(locations=LOCATIONS, killed_at=f"{progress.done}/{progress.total}",
                   requests=outcome.requests_made, mirror_rows=sum(outcome.counts.values()),
                   missing=mirror["missing"], duplicates=mirror["extra"],
                   redelivered=second.received_twice(),
                   recovery_s=round(time.monotonic() - killed, 1))


def test_an_outbox_send_whose_worker_is_killed_is_delivered_once_after_a_restart(
        partner_reseller, celery_worker, figures):
    reseller, seeded = partner_reseller("killed-send-partner-key", locations=3)
    business = BusinessFactory(reseller=reseller, remote_id=seeded["location_numbers"][0])
    photo = "https://images.example.com/killed-worker.jpg"
    first = celery_worker("first")
    set_faults(reseller, latency_ms=3000)  # the provider takes its time over the upload
    with tenant_scope(reseller):
        entry = media_add(tenant=reseller, actor=None, business=business, url=photo,
                          category="EXTERIOR", description="Front", media_format="PHOTO")
    row = OutboxEntry.unscoped.filter(pk=entry.pk)
    wait_for(lambda: row.get().state == OutboxEntry.State.SENDING, timeout=30,
             what="the worker to claim the change")
    time.sleep(0.5)  # the upload is on its way
    first.kill()
    killed = time.monotonic()
    # The provider finishes the upload nobody waits for any more: the outcome is unknown.
    wait_for(lambda: sandbox.MediaItem.objects.filter(url=photo).exists(), timeout=15,
             what="the provider to store the upload")
    assert row.get().state == OutboxEntry.State.SENDING

    set_faults(reseller, latency_ms=0)
    celery_worker("second")

    def swept_and_accepted():
        # The sweep, as the schedule runs it every OUTBOX_SWEEP_SECONDS: the dead worker's row
        # is taken up in doubt, and read back once its request can no longer be on its way.
        outbox_sweep_task.delay()
        entry = row.get()
        return entry.state == OutboxEntry.State.ACCEPTED and entry

    accepted = wait_for(swept_and_accepted, timeout=60, interval=1,
                        what="the change to be accepted")
    # The dead worker's own message comes back too (acks late) and finds nothing to do.
    wait_for(lambda: broker_backlog() == 0, timeout=30, what="the redelivered send to run")

    delivered = sandbox.MediaItem.objects.filter(url=photo).count()
    assert delivered == 1
    assert accepted.attempts >= 2  # the dead worker's, and the one that read it back
    with tenant_scope(reseller):
        assert MediaItem.objects.filter(url=photo).count() == 1
    figures.update(queued=1, delivered=delivered, duplicates=delivered - 1,
                   attempts=accepted.attempts, recovery_s=round(time.monotonic() - killed, 1))

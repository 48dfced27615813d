"""Syncs run by a real worker, and the moments the tests wait for."""

from __future__ import annotations

from accounts.models import SyncRun
from portal.tenancy import tenant_scope
from sync.services import sync_start

SYNCED = ["businesses", "listing_status", "media", "qna"]
LOCATIONS = 12  # four chunks of three (SYNC_CHUNK_SIZE of the test workers)


def sync_in_the_background(reseller) -> SyncRun:
    """Start a sync as the Sync page does: its first task goes to the broker on commit."""
    with tenant_scope(reseller):
        run, created = sync_start(tenant=reseller, actor=None, resources=SYNCED)
    assert created
    return run


def half_way(run: SyncRun) -> SyncRun | None:
    """The run once a chunk is done and others are not: a chunk is being fetched."""
    row = SyncRun.unscoped.get(pk=run.pk)
    return row if row.status == SyncRun.Status.RUNNING and 0 < row.done < row.total else None


def finished(run: SyncRun) -> SyncRun | None:
    """The run once it has ended; a run that succeeded writes its counts a moment later."""
    row = SyncRun.unscoped.get(pk=run.pk)
    ended = row.is_finished and (row.counts or row.status == SyncRun.Status.FAILED)
    return row if ended else None

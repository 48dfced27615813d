"""The demo's own writes."""

from __future__ import annotations

from django.utils import timezone

from accounts.models import Reseller, SyncRun

STOPPED_WITH_THE_DEMO = ("Stopped with the demo before it finished. Start a sync from the "
                         "Sync page, or restart the demo.")


def demo_sync_stop(*, tenant: Reseller, run_ids: list[int]) -> int:
    """Mark the demo's foreground sync runs as failed when the demo stops during them.

    No process drives them any more; left running, they would block the next sync of the same
    resources until they go stale (SYNC_STALE_AFTER_SECONDS).
    """
    return SyncRun.unscoped.filter(
        reseller=tenant, pk__in=run_ids,
        status__in=(SyncRun.Status.QUEUED, SyncRun.Status.RUNNING),
    ).update(status=SyncRun.Status.FAILED, finished_at=timezone.now(),
             errors=[STOPPED_WITH_THE_DEMO])

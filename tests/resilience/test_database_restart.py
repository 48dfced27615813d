"""The database restarting during a sync: every connection is dropped.

That is what a restart looks like to its clients, so while a worker runs a sync the test
terminates every other backend of the test database (the worker's, the live server's, its
own), again and again for two seconds, as long as a quick restart takes. The run must end, not
stay "running", with no partial rows; a rerun gives the exact mirror.
"""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection

from accounts.models import SyncRun
from tests.resilience.conftest import (
    mirror_report,
    test_database_url,
    wait_for,
)
from tests.resilience.runs import LOCATIONS, finished, half_way, sync_in_the_background

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def restart_window(seconds: float = 2.0) -> int:
    """Drop every other connection of the test database, again and again for `seconds`: the
    database is as good as down meanwhile (a client that connects is dropped at once)."""
    dropped = 0
    with psycopg.connect(test_database_url(), autocommit=True) as admin:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            rows = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
            dropped += sum(1 for (terminated,) in rows if terminated)
            time.sleep(0.05)
    return dropped


def test_a_sync_survives_every_database_connection_being_dropped(
        partner_reseller, celery_worker, figures):
    reseller, seeded = partner_reseller("db-restart-partner-key", locations=LOCATIONS,
                                        latency_ms=150)
    worker = celery_worker("worker")
    run = sync_in_the_background(reseller)
    progress = wait_for(lambda: half_way(run), timeout=60, what="the sync to be half-way")
    dropped = restart_window()
    restarted = time.monotonic()
    connection.close()  # ours was dropped too

    outcome = wait_for(lambda: finished(run), timeout=90, what="the sync to end")
    assert outcome.status in (SyncRun.Status.SUCCEEDED, SyncRun.Status.FAILED)
    if outcome.status == SyncRun.Status.SUCCEEDED:
        assert (outcome.done, outcome.failed) == (outcome.total, 0)
        assert mirror_report(reseller)["problems"] == []

    rerun = sync_in_the_background(reseller)
    again = wait_for(lambda: finished(rerun), timeout=90, what="the rerun to end")
    assert again.status == SyncRun.Status.SUCCEEDED, again.errors
    mirror = mirror_report(reseller)
    assert mirror["problems"] == []
    # The connections were dropped: the worker's among them, which it met by connecting
    # again (a step in the middle of its writes repeats them on a new connection; one between
    # two steps connects again when the next begins: either way nothing is fetched twice).
    assert dropped > 0
    met = worker.log_path.read_text()
    lost_writes = met.count("the database connection was lost")
    figures.update(locations=LOCATIONS, dropped_at=f"{progress.done}/{progress.total}",
                   connections_dropped=dropped, writes_repeated=lost_writes, run=outcome.status,
                   recovery_s=round(time.monotonic() - restarted, 1), rerun=again.status,
                   missing=mirror["missing"], duplicates=mirror["extra"],
                   orphans=mirror["orphans"])

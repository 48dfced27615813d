"""What a sync costs the database and how it accounts for its requests (docs/performance.md):
a chunk of locations costs a fixed handful of statements whatever its size, and the run's
request count is exactly what the provider received."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import SyncRun
from portal.tenancy import tenant_scope
from sandbox import ratelimit as sandbox_ratelimit
from sync import services as syncing
from tests.factories import ResellerFactory
from tests.sync.test_sync import KEY, run_sync, seed

pytestmark = pytest.mark.django_db(transaction=True)

# Statements of one location chunk: its run, its locations, five upserts (status reports,
# listing sites, media, questions, answers), four removal marks and the businesses' synced %
# in one transaction (BEGIN and COMMIT count here too), and one progress update. (Only a
# chunk still fetching when workers run out of chunks writes twice: tests/sync/
# test_sync_at_the_limit.py.)
CHUNK_STATEMENTS = 15


@pytest.fixture(autouse=True)
def _fast_retries(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.SYNC_FETCH_THREADS = 2
    settings.DATA_DIR = tmp_path  # a fresh file rate limiter per test


def _reseller(live_server, locations):
    seeded = seed(locations=locations)
    return ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                           provider_base_url=f"{live_server.url}/sandbox",
                           rate_limit_count=1000)


def _chunk_statements(reseller) -> list[int]:
    """Statements of each location chunk of a run, in order (the last one completes it)."""
    chunks = []
    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(
            tenant=reseller, actor=None, resources=["businesses", *syncing.LOCATION_RESOURCES])
        syncing.sync_walk_and_dispatch(
            tenant=reseller, run_id=run.pk,
            dispatcher=syncing.Dispatcher(chunk=lambda **step: chunks.append(step),
                                          account_resource=lambda **step: None))
        statements = []
        for chunk in chunks:
            with CaptureQueriesContext(connection) as captured:
                syncing.sync_location_chunk(tenant=reseller, **chunk)
            statements.append(len(captured.captured_queries))
        run.refresh_from_db()
    assert run.status == SyncRun.Status.SUCCEEDED, run.errors
    assert run.counts["status_reports"] == run.counts["locations"] == 12
    return statements


def test_a_chunk_costs_the_same_few_statements_whatever_its_size(live_server, settings):
    if connection.vendor != "postgresql":
        pytest.skip("on SQLite the live server shares the test's connection, so the sandbox's "
                    "statements cannot be told from the sync's")
    settings.SYNC_CHUNK_SIZE = 6
    of_six = _chunk_statements(_reseller(live_server, 12))
    settings.SYNC_CHUNK_SIZE = 3
    of_three = _chunk_statements(_reseller(live_server, 12))
    assert (len(of_six), len(of_three)) == (2, 4)
    # The last chunk also closes the run.
    assert set(of_six[:-1]) == set(of_three[:-1]) == {CHUNK_STATEMENTS}, (of_six, of_three)


def test_the_run_counts_exactly_the_requests_the_provider_received(live_server, monkeypatch):
    reseller = _reseller(live_server, 12)
    received = []
    lock = threading.Lock()
    count_request = sandbox_ratelimit.count_request

    def counting(*args, **kwargs):
        with lock:
            received.append(1)
        return count_request(*args, **kwargs)

    # The live server answers in a thread of this process, so the sandbox's own counter of
    # requests per key can be watched directly.
    monkeypatch.setattr(sandbox_ratelimit, "count_request", counting)
    outcome = run_sync(reseller)
    assert outcome["status"] == "succeeded", outcome
    with tenant_scope(reseller):
        run = SyncRun.objects.get(pk=outcome["run"])
    assert len(received) > 12 * 3  # the walk, three reads per location, the account resources
    assert run.requests_made == len(received)
    assert run.rate_limited == 0

"""A sync uses the rate limit's allowance from its first second to its last (issue 16): the
walk asks for the children of several containers at once, the survey responses step fetches
pages side by side, and with workers the walk hands out the account resources before it starts
and each chunk of locations as soon as it has mirrored them."""

from __future__ import annotations

import math
import threading
import time

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import AuditEvent, Business, Reseller, SyncRun
from listings.models import ListingStatusReport
from portal.tenancy import tenant_scope
from provider import ProviderClient
from reviews_app import services as reviews_services
from reviews_app.models import Survey, SurveyResponse
from sandbox import models as sandbox
from sync import services as syncing
from sync import tasks as sync_tasks
from tests.factories import ResellerFactory
from tests.live import join_live_server_requests
from tests.sync.test_sync import KEY, partner, run_sync, seed
from tests.sync.test_sync_statements import CHUNK_STATEMENTS

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast_retries(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.SYNC_FETCH_THREADS = 3
    settings.DATA_DIR = tmp_path  # a fresh file rate limiter per test
    yield
    join_live_server_requests()  # a refused request's connection outlives it otherwise


def _side_by_side() -> None:
    if not syncing._writes_may_overlap_requests():
        pytest.skip("an in-memory SQLite database is one connection shared with the live "
                    "server's threads: the sync fetches one reply at a time there")


def _reseller(live_server, locations=40, follow_surveys=True):
    seeded = seed(locations=locations)
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox",
                               rate_limit_count=1000)
    if follow_surveys:
        with tenant_scope(reseller):
            for survey_id in seeded["survey_ids"]:
                reviews_services.survey_add(tenant=reseller, actor=None, remote_id=survey_id)
    return reseller


class InFlight:
    """Wraps a client method to count the calls in flight at once; each call lasts a little
    longer than the sandbox takes, so that calls made side by side overlap."""

    def __init__(self, monkeypatch, name: str, *, hold: float = 0.05) -> None:
        self.now = self.most = self.calls = 0
        self.lock = threading.Lock()
        original = getattr(ProviderClient, name)

        def wrapped(client, *args, **kwargs):
            with self.lock:
                self.now += 1
                self.calls += 1
                self.most = max(self.most, self.now)
            try:
                time.sleep(hold)
                return original(client, *args, **kwargs)
            finally:
                with self.lock:
                    self.now -= 1

        monkeypatch.setattr(ProviderClient, name, wrapped)


# -- the walk ----------------------------------------------------------------------------------


def test_the_walk_asks_for_the_children_of_several_containers_at_once(live_server,
                                                                      monkeypatch):
    _side_by_side()
    reseller = _reseller(live_server, follow_surveys=False)
    walk = InFlight(monkeypatch, "child_businesses")
    outcome = run_sync(reseller, "businesses")
    assert outcome["status"] == "succeeded", outcome
    containers = sandbox.Business.objects.filter(partner=partner()).exclude(type="Business")
    assert walk.calls == containers.count()
    assert walk.most >= 2, "one container's children at a time"
    with tenant_scope(reseller):
        assert Business.objects.count() == sandbox.Business.objects.filter(
            partner=partner()).exclude(number=partner().account_number).count()


def test_rows_get_the_same_ids_whichever_reply_comes_first(live_server, monkeypatch):
    """The replies are mirrored in the order of a depth-first walk, so the primary keys (and so
    the chunks of locations) do not depend on which reply the provider answers first."""
    first = _reseller(live_server, follow_surveys=False)
    run_sync(first, "businesses")
    with tenant_scope(first):
        in_order = list(Business.objects.order_by("pk").values_list("remote_id", flat=True))
    Business.unscoped.filter(reseller=first).delete()

    original = ProviderClient.child_businesses

    def root_answers_last_of_its_level(client, number, *args, **kwargs):
        # The first containers asked answer last: another order of arrival than before.
        reply = original(client, number, *args, **kwargs)
        if number != first.account_number:
            time.sleep(0.2 if number % 2 else 0.0)
        return reply

    monkeypatch.setattr(ProviderClient, "child_businesses", root_answers_last_of_its_level)
    run_sync(first, "businesses")
    with tenant_scope(first):
        assert list(Business.objects.order_by("pk").values_list("remote_id", flat=True)) \
            == in_order


# -- survey responses --------------------------------------------------------------------------


def test_survey_pages_are_fetched_side_by_side_and_written_once_per_survey(live_server,
                                                                           monkeypatch):
    _side_by_side()
    reseller = _reseller(live_server)
    monkeypatch.setattr(reviews_services, "SURVEY_PAGE_SIZE", 2)
    pages = InFlight(monkeypatch, "survey_responses")
    with CaptureQueriesContext(connection) as captured:
        outcome = run_sync(reseller, "survey_responses")
    assert outcome["status"] == "succeeded", outcome
    with tenant_scope(reseller):
        surveys = list(Survey.objects.all())
        mirrored = set(SurveyResponse.objects.values_list("remote_id", flat=True))
    held = sandbox.SurveyResponse.objects.filter(partner=partner())
    assert mirrored == set(held.values_list("response_id", flat=True))
    per_survey = [held.filter(survey__survey_id=survey.remote_id).count() for survey in surveys]
    assert max(per_survey) > 2, "the test needs surveys of several pages"
    # Every page once, and no page past the last (the first page gives the number).
    assert pages.calls == sum(max(1, math.ceil(n / 2)) for n in per_survey)
    assert pages.most >= 2, "one page at a time"
    writes = [q for q in captured.captured_queries
              if q["sql"].startswith('INSERT INTO "reviews_app_surveyresponse"')]
    assert len(writes) == sum(1 for n in per_survey if n)


def test_a_survey_the_provider_no_longer_knows_is_marked_and_the_others_synced(live_server):
    reseller = _reseller(live_server)
    with tenant_scope(reseller):
        gone = reviews_services.survey_add(tenant=reseller, actor=None, remote_id=1)
    outcome = run_sync(reseller, "survey_responses")
    assert outcome["status"] == "succeeded", outcome
    with tenant_scope(reseller):
        gone.refresh_from_db()
        assert gone.unknown_since is not None
        assert Survey.objects.filter(unknown_since__isnull=True).count() == 7
        assert SurveyResponse.objects.count() == sandbox.SurveyResponse.objects.filter(
            partner=partner()).count()


# -- handing out work during the walk ----------------------------------------------------------


class Recorder:
    """A dispatcher of workers that have not started yet: it notes what the walk hands out,
    and when, against the walk's own requests."""

    def __init__(self, monkeypatch, reseller) -> None:
        self.events: list[tuple] = []
        self.reseller = reseller
        original = ProviderClient.child_businesses

        def noted(client, number, *args, **kwargs):
            reply = original(client, number, *args, **kwargs)
            self.events.append(("reply", number))
            return reply

        monkeypatch.setattr(ProviderClient, "child_businesses", noted)
        self.dispatcher = syncing.Dispatcher(
            chunk=lambda **step: self.events.append(("chunk", step)),
            account_resource=lambda **step: self.events.append(("account", step)),
            concurrent=True)

    def steps(self, kind: str) -> list[dict]:
        return [step for event, step in self.events if event == kind]

    def run_steps(self) -> None:
        for step in self.steps("account"):
            syncing.sync_account_resource(tenant=self.reseller, **step)
        for step in self.steps("chunk"):
            syncing.sync_location_chunk(tenant=self.reseller, **step)


def test_workers_get_the_account_resources_before_the_walk_and_locations_as_found(
        live_server, monkeypatch, settings):
    settings.SYNC_CHUNK_SIZE = 6
    reseller = _reseller(live_server)
    recorder = Recorder(monkeypatch, reseller)
    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(tenant=reseller, actor=None)
        syncing.sync_walk_and_dispatch(tenant=reseller, run_id=run.pk,
                                       dispatcher=recorder.dispatcher)
        kinds = [event for event, _step in recorder.events]
        # One step, survey responses (pages of seconds) first.
        assert kinds[0] == "account" and kinds.count("account") == 1
        assert recorder.steps("account")[0]["resources"] == [
            "survey_responses", "ai_search", "review_counts", "competitor_metrics",
            "competitive_ranking"]
        last_reply = max(i for i, kind in enumerate(kinds) if kind == "reply")
        assert kinds.index("chunk") < last_reply, "no location went out before the walk ended"

        chunks = recorder.steps("chunk")
        handed_out = [number for step in chunks for number in step["remote_ids"]]
        locations = Business.objects.filter(type="Business")
        assert sorted(handed_out) == sorted(locations.values_list("remote_id", flat=True))
        # The first locations found go out at once, the others a full chunk at a time, and
        # what is left when the walk ends.
        sizes = [step["expected"] for step in chunks]
        assert 0 < sizes[0] < 6 and set(sizes[1:-1]) == {6} and 0 < sizes[-1] <= 6, sizes

        run.refresh_from_db()
        assert run.status == SyncRun.Status.RUNNING
        assert run.total == len(handed_out) + 5
        recorder.run_steps()
        run.refresh_from_db()
    assert run.status == SyncRun.Status.SUCCEEDED, run.errors
    assert run.done == run.total and run.failed == 0
    assert run.counts["status_reports"] == run.counts["locations"] == len(handed_out)


def test_steps_done_during_the_walk_cannot_complete_the_run_before_it_ends(live_server,
                                                                         settings):
    settings.SYNC_CHUNK_SIZE = 4
    reseller = _reseller(live_server, locations=20)
    seen: list[str] = []

    def chunk_now(**step):
        syncing.sync_location_chunk(tenant=reseller, **step)
        seen.append(SyncRun.objects.get(pk=step["run_id"]).status)

    def account_now(**step):
        syncing.sync_account_resource(tenant=reseller, **step)
        seen.append(SyncRun.objects.get(pk=step["run_id"]).status)

    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(tenant=reseller, actor=None)
        syncing.sync_walk_and_dispatch(
            tenant=reseller, run_id=run.pk,
            dispatcher=syncing.Dispatcher(chunk=chunk_now, account_resource=account_now,
                                          concurrent=True))
        run.refresh_from_db()
    assert len(seen) > 5 and set(seen) == {SyncRun.Status.RUNNING}
    assert run.status == SyncRun.Status.SUCCEEDED, run.errors
    assert run.done == run.total == 20 + len(syncing.ACCOUNT_RESOURCES)


def test_a_chunk_handed_out_by_the_walk_costs_the_same_statements(live_server, monkeypatch,
                                                                  settings):
    if connection.vendor != "postgresql":
        pytest.skip("on SQLite the live server shares the test's connection, so the sandbox's "
                    "statements cannot be told from the sync's")
    settings.SYNC_CHUNK_SIZE = 8
    reseller = _reseller(live_server, locations=40, follow_surveys=False)
    recorder = Recorder(monkeypatch, reseller)
    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(
            tenant=reseller, actor=None, resources=["businesses", *syncing.LOCATION_RESOURCES])
        with CaptureQueriesContext(connection) as walk:
            syncing.sync_walk_and_dispatch(tenant=reseller, run_id=run.pk,
                                           dispatcher=recorder.dispatcher)
        chunks = recorder.steps("chunk")
        statements = []
        for step in chunks:
            # As a worker runs it: the task reads the run's reseller with the locations.
            with CaptureQueriesContext(connection) as captured:
                sync_tasks.sync_location_chunk_task(reseller_id=reseller.pk, **step)
            statements.append(len(captured.captured_queries))
        run.refresh_from_db()
    assert run.status == SyncRun.Status.SUCCEEDED, run.errors
    assert len(chunks) == 6  # the first two found at once, four of eight, the last six
    assert set(statements[:-1]) == {CHUNK_STATEMENTS - 1}, statements
    # The total is reserved in doubling steps, not once per chunk.
    reservations = [q for q in walk.captured_queries
                    if q["sql"].startswith('UPDATE "accounts_syncrun" SET "total"')]
    assert len(reservations) <= math.ceil(math.log2(len(chunks))) + 1, len(reservations)


def test_a_key_refused_to_several_steps_at_once_is_recorded_once(live_server):
    reseller = _reseller(live_server, locations=12)
    sandbox.PartnerAccount.objects.filter(pk=partner().pk).update(key_hash="0" * 64)

    def account_now(**step):
        syncing.sync_account_resource(tenant=reseller, **step)

    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(tenant=reseller, actor=None)
        syncing.sync_walk_and_dispatch(
            tenant=reseller, run_id=run.pk,
            dispatcher=syncing.Dispatcher(chunk=lambda **step: None,
                                          account_resource=account_now, concurrent=True))
        run.refresh_from_db()
        recorded = AuditEvent.objects.filter(action="reseller.api_key_rejected").count()
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.KEY_REJECTED
    assert run.status == SyncRun.Status.FAILED
    assert recorded == 1


def test_a_chunk_task_of_an_older_attempt_asks_nothing_and_one_of_removed_locations_counts(
        live_server, monkeypatch, settings):
    """The chunk's task reads its locations only while its run is at the chunk's attempt: a
    chunk left from an older attempt asks the provider nothing; a chunk whose locations were
    all removed since the walk still counts them as done."""
    settings.SYNC_CHUNK_SIZE = 6
    reseller = _reseller(live_server, locations=12, follow_surveys=False)
    recorder = Recorder(monkeypatch, reseller)
    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(
            tenant=reseller, actor=None, resources=["businesses", *syncing.LOCATION_RESOURCES])
        syncing.sync_walk_and_dispatch(tenant=reseller, run_id=run.pk,
                                       dispatcher=recorder.dispatcher)
    first, second, *others = recorder.steps("chunk")
    asked = InFlight(monkeypatch, "location_status", hold=0)

    SyncRun.unscoped.filter(pk=run.pk).update(attempt=F("attempt") + 1)
    sync_tasks.sync_location_chunk_task(reseller_id=reseller.pk, **first)
    run.refresh_from_db()
    assert (asked.calls, run.done) == (0, 0)

    SyncRun.unscoped.filter(pk=run.pk).update(attempt=F("attempt") - 1)
    Business.unscoped.filter(reseller=reseller, remote_id__in=second["remote_ids"]).update(
        removed_at=timezone.now())
    sync_tasks.sync_location_chunk_task(reseller_id=reseller.pk, **second)
    run.refresh_from_db()
    assert (asked.calls, run.done) == (0, second["expected"])
    for step in [first, *others]:
        sync_tasks.sync_location_chunk_task(reseller_id=reseller.pk, **step)
    run.refresh_from_db()
    assert asked.calls == 12 - second["expected"]
    assert run.status == SyncRun.Status.SUCCEEDED and run.done == run.total == 12


# -- the end of a run ---------------------------------------------------------------------------


def _one_chunk(live_server, monkeypatch, settings, *, locations=16):
    settings.SYNC_CHUNK_SIZE = locations
    reseller = _reseller(live_server, locations=locations, follow_surveys=False)
    recorder = Recorder(monkeypatch, reseller)
    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(
            tenant=reseller, actor=None, resources=["businesses", *syncing.LOCATION_RESOURCES])
        syncing.sync_walk_and_dispatch(tenant=reseller, run_id=run.pk,
                                       dispatcher=recorder.dispatcher)
        run.refresh_from_db()
    # The walk hands out its first locations at once: one chunk of them all instead.
    steps = recorder.steps("chunk")
    chunk = {**steps[0], "remote_ids": [n for step in steps for n in step["remote_ids"]],
             "expected": sum(step["expected"] for step in steps)}
    cache.set(f"{syncing.chunk_counts_key(run)}:handed-out", 1)
    return reseller, run, chunk


class LastAsked:
    """Counts the status reports already written when the chunk asks for its last location
    (it waits a little for them, so that a write under way can land)."""

    def __init__(self, monkeypatch, reseller, *, total: int, wait: float) -> None:
        self.written: list[int] = []
        calls, lock = [], threading.Lock()
        original = ProviderClient.location_status

        def noted(client, number, *args, **kwargs):
            with lock:
                calls.append(number)
                last = len(calls) == total
            if last:
                reports = ListingStatusReport.unscoped.filter(reseller=reseller)
                deadline = time.monotonic() + wait
                try:
                    while not reports.exists() and time.monotonic() < deadline:
                        time.sleep(0.05)
                    self.written.append(reports.count())
                finally:
                    connection.close()  # this fetch thread's own connection
            return original(client, number, *args, **kwargs)

        monkeypatch.setattr(ProviderClient, "location_status", noted)


def test_a_chunk_at_the_limit_with_others_still_to_start_keeps_its_threads_and_writes_at_its_end(
        live_server, monkeypatch, settings):
    reseller, run, chunk = _one_chunk(live_server, monkeypatch, settings)
    cache.set(f"{syncing.chunk_counts_key(run)}:handed-out", 2)  # another waits for a worker

    class UsedUp:
        """The process's limiter, as it is when every request waits for its slot (the
        allowance used up by the other chunks)."""

        def last_wait(self, key):
            return time.monotonic()

    monkeypatch.setattr(syncing, "shared_rate_limiter", UsedUp)
    overlap = syncing._writes_may_overlap_requests()
    if overlap:
        last = LastAsked(monkeypatch, reseller, total=16, wait=1.0)
    asked = InFlight(monkeypatch, "location_status")
    with tenant_scope(reseller):
        syncing.sync_location_chunk(tenant=reseller, **chunk)
        assert ListingStatusReport.objects.count() == 16
    assert asked.calls == 16
    assert asked.most <= settings.SYNC_FETCH_THREADS
    if overlap:
        assert last.written == [0]


def test_the_last_chunks_fetch_with_more_threads_while_the_allowance_goes_unused_and_write_ahead(
        live_server, monkeypatch, settings):
    """At the end of a run every chunk has started and the workers run out of chunks one by
    one: the chunks still fetching take more threads while their requests do not wait for a
    slot, and write most of what they have while their last locations are fetched, so that
    little is left to write after the run's last request."""
    reseller, run, chunk = _one_chunk(live_server, monkeypatch, settings)
    # This chunk is the run's only one (all have started), far below the limit (1000/s).
    overlap = syncing._writes_may_overlap_requests()
    if overlap:
        last = LastAsked(monkeypatch, reseller, total=16, wait=10.0)
    asked = InFlight(monkeypatch, "location_status")
    with tenant_scope(reseller):
        syncing.sync_location_chunk(tenant=reseller, **chunk)
        run.refresh_from_db()
        assert ListingStatusReport.objects.count() == 16
    assert run.status == SyncRun.Status.SUCCEEDED, run.errors
    assert asked.calls == 16
    assert settings.SYNC_FETCH_THREADS < asked.most <= syncing.WIDEST * settings.SYNC_FETCH_THREADS
    if overlap:
        # Written ahead: the first ones, once no more than a quarter were left to fetch.
        assert len(last.written) == 1 and 2 <= last.written[0] < 16, last.written

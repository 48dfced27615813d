"""A run's steps as rows: a dead worker's step is taken up by another within a sweep, a lost
task is queued again, a step is counted once however often it runs, a run is stale when it
stops progressing, and a lost database connection costs a reconnect, not a refetch."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from accounts.models import SyncRun
from portal.durable import with_reconnect
from portal.tenancy import tenant_scope
from sandbox.seeding import seed_partner
from sync import services as syncing
from sync import steps, tasks
from sync.models import SyncStep
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sync-steps-test-partner-key"
State = SyncStep.State


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.SYNC_FETCH_THREADS = 2
    settings.SYNC_CHUNK_SIZE = 3
    settings.DATA_DIR = tmp_path


@pytest.fixture
def reseller(live_server):
    seeded = seed_partner(api_key=KEY, locations=9, seed=11, rate_limit=(1000, 1))
    return ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                           provider_base_url=f"{live_server.url}/sandbox",
                           rate_limit_count=1000)


class Broker:
    """The messages the portal queued, kept instead of sent; `deliver` runs one as a worker
    would."""

    TASKS = {"sync_run_task": tasks.sync_run_task,
             "sync_location_chunk_task": tasks.sync_location_chunk_task,
             "sync_account_resource_task": tasks.sync_account_resource_task}

    def __init__(self, monkeypatch):
        self.messages: list[tuple[str, dict]] = []
        for name, task in self.TASKS.items():
            monkeypatch.setattr(task, "delay", lambda name=name, **kwargs: self.messages.append(
                (name, kwargs)))

    def take(self, name: str) -> list[dict]:
        taken = [kwargs for task, kwargs in self.messages if task == name]
        self.messages = [(task, kwargs) for task, kwargs in self.messages if task != name]
        return taken

    @classmethod
    def deliver(cls, name: str, kwargs: dict):
        return cls.TASKS[name].apply(kwargs=kwargs).get(disable_sync_subtasks=False)

    def deliver_all(self, name: str) -> int:
        delivered = 0
        while batch := self.take(name):
            for kwargs in batch:
                self.deliver(name, kwargs)
                delivered += 1
        return delivered


def start(reseller, broker, **options) -> SyncRun:
    with tenant_scope(reseller), transaction.atomic():
        run, created = syncing.sync_start(tenant=reseller, actor=None, **options)
    assert created
    (walk,) = broker.take("sync_run_task")
    broker.deliver("sync_run_task", walk)
    return run


def run_of(run) -> SyncRun:
    return SyncRun.unscoped.get(pk=run.pk)


def silence(step_id: int, seconds: float = 600) -> None:
    """The step as a worker that claimed it and died leaves it."""
    since = timezone.now() - timedelta(seconds=seconds)
    SyncStep.unscoped.filter(pk=step_id).update(state=State.RUNNING, claimed_at=since,
                                                heartbeat_at=since, deliveries=1)


def test_every_step_of_a_run_is_a_row_done_once(reseller, monkeypatch):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    chunks = broker.take("sync_location_chunk_task")
    assert len(chunks) >= 3 and all(message["step_id"] for message in chunks)
    for message in chunks:
        broker.deliver("sync_location_chunk_task", message)
    broker.deliver_all("sync_account_resource_task")
    finished = run_of(run)
    assert finished.status == SyncRun.Status.SUCCEEDED, finished.errors
    assert (finished.done, finished.failed) == (finished.total, 0)
    assert set(SyncStep.unscoped.filter(run=run).values_list("state", flat=True)) == {State.DONE}
    # A message delivered twice (the broker's redelivery) finds its step done: nothing counts.
    broker.deliver("sync_location_chunk_task", chunks[0])
    assert run_of(run).done == finished.done


def test_a_dead_workers_chunk_is_taken_up_by_the_sweep(reseller, monkeypatch):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    dead, *others = broker.take("sync_location_chunk_task")
    broker.deliver_all("sync_account_resource_task")
    for message in others:
        broker.deliver("sync_location_chunk_task", message)
    silence(dead["step_id"])
    assert steps.run_lost_parts(run_of(run)) == 1  # the run shows it waits for a lost part

    with tenant_scope(reseller):
        requests_before = run_of(run).requests_made
    assert steps.steps_sweep()["taken_up"] == 1
    (again,) = broker.take("sync_location_chunk_task")
    assert again == dead  # the same step, with what it needs
    assert steps.run_lost_parts(run_of(run)) == 1  # still waiting for a worker to take it
    broker.deliver("sync_location_chunk_task", again)
    finished = run_of(run)
    assert finished.status == SyncRun.Status.SUCCEEDED, finished.errors
    assert (finished.done, finished.failed) == (finished.total, 0)
    assert steps.run_lost_parts(finished) == 0
    # Only the lost chunk was fetched again: a status report, media and Q&A per location.
    assert finished.requests_made - requests_before == 3 * dead["expected"]
    # The dead worker's own message, delivered again by the broker later, does nothing.
    broker.deliver("sync_location_chunk_task", dead)
    assert run_of(run).done == finished.done
    assert steps.steps_sweep()["taken_up"] == 0


def test_a_step_that_keeps_losing_its_worker_is_given_up_and_counted_failed(reseller,
                                                                           monkeypatch):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    chunks = broker.take("sync_location_chunk_task")
    broker.deliver_all("sync_account_resource_task")
    for message in chunks[1:]:
        broker.deliver("sync_location_chunk_task", message)
    silence(chunks[0]["step_id"])
    SyncStep.unscoped.filter(pk=chunks[0]["step_id"]).update(deliveries=steps.MAX_DELIVERIES)
    assert steps.steps_sweep()["given_up"] == 1
    finished = run_of(run)
    assert finished.status == SyncRun.Status.PARTIAL
    assert finished.failed == chunks[0]["expected"]
    assert "A worker was lost 5 times" in finished.errors[-1]


def test_a_lost_task_is_queued_again_only_when_the_broker_holds_none(reseller, monkeypatch,
                                                                     settings):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    chunks = broker.take("sync_location_chunk_task")  # lost: a broker restarted without them
    lost_since = timezone.now() - timedelta(seconds=settings.SYNC_STEP_LOST_SECONDS + 1)
    SyncStep.unscoped.filter(run=run).exclude(kind=SyncStep.Kind.WALK).update(
        dispatched_at=lost_since)
    SyncStep.unscoped.filter(run=run, kind=SyncStep.Kind.WALK).update(
        dispatched_at=lost_since - timedelta(seconds=5))  # the walk went first
    monkeypatch.setattr(steps, "broker_backlog", lambda: 40)  # a backlog: they may wait there
    assert steps.steps_sweep()["queued_again"] == 0
    monkeypatch.setattr(steps, "broker_backlog", lambda: None)  # cannot tell: wait
    assert steps.steps_sweep()["queued_again"] == 0
    monkeypatch.setattr(steps, "broker_backlog", lambda: 0)
    # The chunks and the account step.
    assert steps.steps_sweep()["queued_again"] == len(chunks) + 1
    assert sorted(m["step_id"] for m in broker.take("sync_location_chunk_task")) == sorted(
        m["step_id"] for m in chunks)


def test_a_task_is_lost_when_one_queued_after_it_has_started(reseller, monkeypatch, settings):
    """The broker hands messages out in order: a later step started while an earlier one
    still waits means the earlier message is gone, whatever else the broker holds."""
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    first, *later = broker.take("sync_location_chunk_task")
    broker.take("sync_account_resource_task")
    monkeypatch.setattr(steps, "broker_backlog", lambda: 40)
    long_ago = timezone.now() - timedelta(seconds=settings.SYNC_STEP_LOST_SECONDS + 30)
    SyncStep.unscoped.filter(run=run, kind=SyncStep.Kind.WALK).update(
        dispatched_at=long_ago - timedelta(seconds=5))  # the walk went first
    SyncStep.unscoped.filter(pk=first["step_id"]).update(dispatched_at=long_ago)
    SyncStep.unscoped.filter(run=run).exclude(pk=first["step_id"]).exclude(
        kind=SyncStep.Kind.WALK).update(dispatched_at=long_ago + timedelta(seconds=10))
    assert steps.steps_sweep()["queued_again"] == 0  # nothing later has started: it may wait
    broker.deliver("sync_location_chunk_task", later[0])
    assert steps.steps_sweep()["queued_again"] == 1
    assert [m["step_id"] for m in broker.take("sync_location_chunk_task")] == [first["step_id"]]


def test_a_run_is_stale_when_it_stops_progressing_not_when_it_is_old(reseller, monkeypatch,
                                                                     settings):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    long_ago = timezone.now() - timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS * 2)
    SyncRun.unscoped.filter(pk=run.pk).update(created_at=long_ago)
    # Old, but its chunks were just handed out: the same run is returned, none beside it.
    with tenant_scope(reseller):
        same, created = syncing.sync_run_create(tenant=reseller, actor=None)
    assert (same.pk, created) == (run.pk, False)
    # A chunk counted moves the run on too.
    broker.deliver("sync_location_chunk_task", broker.take("sync_location_chunk_task")[0])
    assert run_of(run).updated_at > timezone.now() - timedelta(seconds=5)

    # Nothing moves any more (no count, no step alive): the next start ends it first.
    SyncRun.unscoped.filter(pk=run.pk).update(updated_at=long_ago)
    SyncStep.unscoped.filter(run=run).update(dispatched_at=long_ago, heartbeat_at=long_ago)
    with tenant_scope(reseller):
        new, created = syncing.sync_run_create(tenant=reseller, actor=None)
    assert created and new.pk != run.pk
    ended = run_of(run)
    assert ended.status == SyncRun.Status.FAILED
    assert "stopped making progress" in ended.errors[-1]
    active = SyncRun.unscoped.filter(reseller=reseller, status__in=syncing.ACTIVE)
    assert list(active.values_list("pk", flat=True)) == [new.pk]


def test_the_sweep_ends_a_run_nothing_works_on(reseller, monkeypatch, settings):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    long_ago = timezone.now() - timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS + 60)
    SyncRun.unscoped.filter(pk=run.pk).update(updated_at=long_ago)
    SyncStep.unscoped.filter(run=run).update(dispatched_at=long_ago, heartbeat_at=long_ago,
                                             state=State.DONE)
    assert steps.steps_sweep()["runs_ended"] == 1
    assert run_of(run).status == SyncRun.Status.FAILED


def test_a_lost_database_connection_costs_a_reconnect_not_a_refetch(reseller, monkeypatch):
    broker = Broker(monkeypatch)
    run = start(reseller, broker)
    broker.deliver_all("sync_account_resource_task")
    real = syncing._mirror_locations
    failures = []

    def drop_once(**kwargs):
        if not failures:
            failures.append(1)
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(syncing, "_mirror_locations", drop_once)
    monkeypatch.setattr("portal.durable.time.sleep", lambda seconds: None)
    before = run_of(run)
    message = broker.take("sync_location_chunk_task")[0]
    broker.deliver("sync_location_chunk_task", message)
    after = run_of(run)
    assert failures == [1]
    assert after.done - before.done == message["expected"]  # counted once
    # Its locations were fetched once: a status report, media and Q&A each (no refetch).
    assert after.requests_made - before.requests_made == 3 * message["expected"]


def test_a_write_is_repeated_after_a_lost_connection_only_outside_a_transaction(monkeypatch):
    calls = []

    def write():
        calls.append(1)
        if len(calls) < 3:
            raise OperationalError("terminating connection due to administrator command")
        return "written"

    slept = []
    assert with_reconnect(write, what="test", sleep=slept.append) == "written"
    assert len(calls) == 3 and slept == [0.25, 0.5]
    calls.clear()
    with transaction.atomic(), pytest.raises(OperationalError):
        with_reconnect(write, what="test", sleep=slept.append)
    assert len(calls) == 1  # the caller's transaction is gone: not hidden by a retry
    calls.clear()
    with pytest.raises(OperationalError):
        with_reconnect(lambda: (_ for _ in ()).throw(OperationalError("down")), what="test",
                       budget=0.6, sleep=lambda s: None)
    assert connection.vendor  # still usable


def test_a_heartbeat_stops_a_worker_whose_step_was_taken_up(reseller):
    run = SyncRun.unscoped.create(reseller=reseller, status=SyncRun.Status.RUNNING, attempt=1)
    step = steps.step_create(run=run, attempt=1, kind=SyncStep.Kind.CHUNK, arguments={})
    claim = steps.step_take(step.pk)
    assert isinstance(claim, steps.StepClaim)
    assert steps.step_take(step.pk) is False  # another delivery: not its to run
    beat = claim.heartbeat()
    beat._last -= 3600
    beat.beat()
    silence(step.pk)
    other = steps.step_take(step.pk)  # the sweep handed it to another worker
    assert isinstance(other, steps.StepClaim)
    beat._last -= 3600
    with pytest.raises(steps.StepTaken):
        beat.beat()
    assert not claim.done() and other.done()

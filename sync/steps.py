"""The steps of a run as rows (`SyncStep`): handed out, claimed, kept alive, done once, and
taken up again when their worker died or their task was lost.

A Celery worker killed mid-step leaves its message unacknowledged; the broker hands it out
again only after its visibility timeout (up to an hour). The step's row knows sooner: its
worker gives a sign of life every SYNC_HEARTBEAT_SECONDS, and the sweep (every
SYNC_SWEEP_SECONDS) queues a step silent for SYNC_STEP_STALE_SECONDS again, so that another
worker takes it up within seconds. The dead worker's own message, delivered again later, finds
the step done and does nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError
from django.db.models import DateTimeField, Exists, ExpressionWrapper, F, OuterRef, Q
from django.utils import timezone

from accounts.models import SyncRun
from portal.durable import broker_backlog, seconds_ago, task_queue
from sync.models import SyncStep

logger = logging.getLogger(__name__)

Kind, State = SyncStep.Kind, SyncStep.State

# Steps queued this much apart are taken in that order by the broker's workers.
QUEUE_ORDER_MARGIN = timedelta(seconds=2)
# A step whose worker died this many times is given up: its locations count as failed, with
# the reason, rather than killing worker after worker (a step that crashes its process).
MAX_DELIVERIES = 5


def step_create(*, run: SyncRun, attempt: int, kind: str, arguments: dict,
                expected: int = 1) -> SyncStep:
    return SyncStep.unscoped.create(reseller_id=run.reseller_id, run_id=run.pk,
                                    attempt=attempt, kind=kind, arguments=arguments,
                                    expected=expected)


def step_claim(step_id: int) -> datetime | None:
    """Take a step to work on: queued, or running with a silent worker. Returns the claim's
    moment (the token its heartbeats and its end are written under), or None when the step is
    done or another worker is on it."""
    now = timezone.now()
    stale = seconds_ago(settings.SYNC_STEP_STALE_SECONDS, now=now)
    claimed = SyncStep.unscoped.filter(pk=step_id).filter(
        Q(state=State.QUEUED) | Q(state=State.RUNNING, heartbeat_at__lt=stale)
    ).update(state=State.RUNNING, claimed_at=now, heartbeat_at=now, lost_worker=False,
             deliveries=F("deliveries") + 1)
    return now if claimed else None


def step_release(step_id: int, claimed_at: datetime, *, due_in: float) -> None:
    """Give a step back to be claimed again by its task's retry, due in `due_in` seconds (it
    counts as handed out then, so that it is not taken for lost while it waits)."""
    SyncStep.unscoped.filter(pk=step_id, claimed_at=claimed_at, state=State.RUNNING).update(
        state=State.QUEUED, dispatched_at=timezone.now() + timedelta(seconds=due_in))


def step_done(step_id: int, claimed_at: datetime) -> bool:
    """Mark a step done under its claim (in the transaction that counts it): False when its
    claim was lost, and another worker counts it instead."""
    return bool(SyncStep.unscoped.filter(pk=step_id, claimed_at=claimed_at,
                                         state=State.RUNNING)
                .update(state=State.DONE, finished_at=timezone.now()))


@dataclass(frozen=True)
class StepClaim:
    """A worker's claim on a step: what its heartbeat and its end are written under."""

    step_id: int
    claimed_at: datetime

    def heartbeat(self) -> Heartbeat:
        return Heartbeat(self.step_id, self.claimed_at)

    def done(self) -> bool:
        return step_done(self.step_id, self.claimed_at)


def step_take(step_id: int | None) -> StepClaim | None | bool:
    """The claim on a step for the task about to run it: a StepClaim; True for a task without
    a step (queued before steps were rows, or run inline); False when the step is not this
    task's to run (done, or another worker is on it)."""
    if step_id is None:
        return True
    claimed_at = step_claim(step_id)
    return StepClaim(step_id, claimed_at) if claimed_at is not None else False


class StepTaken(Exception):
    """Another worker took the step up (this one was silent too long): stop, count nothing."""


class Heartbeat:
    """The sign of life of the worker on a step: `beat()` as often as convenient; it writes at
    most every SYNC_HEARTBEAT_SECONDS, and raises StepTaken when the claim was lost.

    Without a step (the foreground command runs its steps inline) it does nothing. A database
    that does not answer skips a beat: the step goes on with what it fetched."""

    def __init__(self, step_id: int | None, claimed_at: datetime | None) -> None:
        self.step_id, self.claimed_at = step_id, claimed_at
        self._last = time.monotonic()

    def beat(self) -> None:
        if self.step_id is None or time.monotonic() - self._last < settings.SYNC_HEARTBEAT_SECONDS:
            return
        self._last = time.monotonic()
        try:
            alive = SyncStep.unscoped.filter(pk=self.step_id, claimed_at=self.claimed_at,
                                             state=State.RUNNING).update(
                heartbeat_at=timezone.now())
        except DatabaseError:
            logger.warning("sync step %s: could not give a sign of life", self.step_id)
            from django.db import connection

            connection.close()  # the next statement connects again
            return
        if not alive:
            raise StepTaken(f"sync step {self.step_id} was taken up by another worker")


NO_HEARTBEAT = Heartbeat(None, None)


# -- the sweep ------------------------------------------------------------------------------------


def _current(steps):
    """Steps that still matter: a run's walk while the run is queued or running (one per run;
    taken up again, it starts the run's next attempt), and the other steps of the attempt their
    run is at while it runs (older attempts' steps do nothing)."""
    active = (SyncRun.Status.QUEUED, SyncRun.Status.RUNNING)
    return steps.filter(
        Q(kind=Kind.WALK, run__status__in=active)
        | (~Q(kind=Kind.WALK) & Q(Exists(SyncRun.unscoped.filter(
            pk=OuterRef("run_id"), attempt=OuterRef("attempt"),
            status=SyncRun.Status.RUNNING)))))


def steps_sweep() -> dict[str, int]:
    """Hand out again the steps of running runs whose worker died or whose task was lost, give
    up on steps that killed too many workers, and end the runs that stopped progressing.
    Returns what it did, by kind."""
    from sync import services, tasks

    now = timezone.now()
    done = {"taken_up": 0, "queued_again": 0, "given_up": 0, "runs_ended": 0}
    silent = _current(SyncStep.unscoped.filter(
        state=State.RUNNING, heartbeat_at__lt=seconds_ago(settings.SYNC_STEP_STALE_SECONDS,
                                                          now=now)))
    waiting = _current(SyncStep.unscoped.filter(
        state=State.QUEUED, dispatched_at__lt=seconds_ago(settings.SYNC_STEP_LOST_SECONDS,
                                                          now=now)))
    # The broker hands its messages out in the order they were queued: a step handed out
    # later that a worker has started already means this one's message is gone (a broker
    # restarted without it, a worker that died holding it before it began). Failing that, a
    # broker that holds no message at all says the same.
    lost = waiting.filter(Exists(SyncStep.unscoped.filter(
        dispatched_at__gt=ExpressionWrapper(OuterRef("dispatched_at") + QUEUE_ORDER_MARGIN,
                                            output_field=DateTimeField()),
        claimed_at__gte=F("dispatched_at"))))
    candidates = list(silent.select_related("run")[:100])
    candidates += list(lost.select_related("run")[:100])
    if len(candidates) < 100 and broker_backlog() == 0:
        candidates += list(waiting.exclude(pk__in=[s.pk for s in candidates])
                           .select_related("run")[:100])
    for step in candidates:
        if step.deliveries >= MAX_DELIVERIES:
            services.sync_step_give_up(step=step, reason=(
                f"A worker was lost {step.deliveries} times on this part of the sync; it is "
                "counted as failed."))
            done["given_up"] += 1
            continue
        # Queued again under the dispatch time: the claim takes it as queued.
        if not SyncStep.unscoped.filter(pk=step.pk, state=step.state,
                                        heartbeat_at=step.heartbeat_at).update(
                state=State.QUEUED, dispatched_at=now,
                lost_worker=step.state == State.RUNNING or step.lost_worker):
            continue  # it moved meanwhile
        done["taken_up" if step.state == State.RUNNING else "queued_again"] += 1
        logger.warning("sync %s: %s step %s %s; handed out again", step.run_id, step.kind,
                       step.pk, "fell silent" if step.state == State.RUNNING
                       else "was never started")
        if not task_queue(lambda s=step: tasks.step_task(s.kind).delay(
                reseller_id=s.reseller_id, step_id=s.pk, **s.arguments),
                what=f"sync step {step.pk}"):
            break
    done["runs_ended"] = services.sync_runs_end_stalled(now=now)
    done["pruned"] = _prune(now)
    return done


def _prune(now: datetime) -> int:
    """Forget the steps of runs that ended over a week ago (a few hundred at a time)."""
    old = SyncStep.unscoped.filter(run__finished_at__lt=now - timedelta(days=7)).values_list(
        "pk", flat=True)[:1000]
    return SyncStep.unscoped.filter(pk__in=list(old)).delete()[0]


def run_lost_parts(run: SyncRun) -> int:
    """How many steps of the run wait for a lost worker's part to be taken up: silent, or
    handed out again after a worker was lost on them."""
    stale = seconds_ago(settings.SYNC_STEP_STALE_SECONDS)
    return SyncStep.unscoped.filter(run_id=run.pk, attempt=run.attempt).filter(
        Q(state=State.RUNNING, heartbeat_at__lt=stale)
        | Q(state=State.QUEUED, lost_worker=True)).count()


def run_alive_since(stale_before: datetime):
    """A condition on runs: some step of their current attempt gave a sign of life, or was
    handed out, since `stale_before`."""
    return Exists(SyncStep.unscoped.filter(
        run_id=OuterRef("pk"), state__in=(State.QUEUED, State.RUNNING)).filter(
        Q(kind=Kind.WALK) | Q(attempt=OuterRef("attempt"))).filter(
        Q(heartbeat_at__gte=stale_before) | Q(dispatched_at__gte=stale_before)))

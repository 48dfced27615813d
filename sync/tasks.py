"""Celery tasks of a sync: thin wrappers that take ids, enter the tenant scope, call one step.

Every step is idempotent (bulk upserts keyed by remote ids) and a row (`sync.steps`) that the
task claims before it runs: a message delivered twice (acknowledged late, a killed worker's
message handed out again) finds its step done or taken and does nothing, and the sync sweep
hands out again a step whose worker fell silent.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from accounts.models import Reseller, SyncRun
from portal.durable import with_reconnect
from portal.retries import retry_delay
from portal.tenancy import tenant_scope
from provider import RateLimited, Transient
from sync import services as syncing
from sync import steps
from sync.models import SyncStep

STEP_OPTIONS = {
    "bind": True, "acks_late": True, "max_retries": 8,
    # A database restart drops every connection mid-step; the step runs again on a new one
    # (Celery's Django fixup replaces a broken connection before each task).
    "autoretry_for": (OperationalError, InterfaceError), "retry_backoff": 2,
    "retry_backoff_max": 60, "retry_jitter": False,
}


def _countdown(task, exc: Exception) -> float:
    return retry_delay(task.request.retries, base=5, cap=300,
                       suggested=getattr(exc, "retry_after", None))


def _give_up(run_id: int, exc: Exception) -> None:
    SyncRun.objects.filter(pk=run_id).exclude(status__in=SyncRun.FINISHED).update(
        status=SyncRun.Status.FAILED, finished_at=timezone.now())
    run = SyncRun.objects.get(pk=run_id)
    run.errors = [*run.errors, f"Gave up after repeated provider failures: {exc}"][:20]
    run.save(update_fields=["errors"])


def _retry_or_fail(task, run_id: int, exc: Exception, claim: steps.StepClaim | None = None):
    if task.request.retries >= task.max_retries:
        _give_up(run_id, exc)
        return None
    countdown = _countdown(task, exc)
    if claim is not None:
        # The retry claims the step again; until it is due, the step is not taken for lost.
        steps.step_release(claim.step_id, claim.claimed_at, due_in=countdown)
    raise task.retry(exc=exc, countdown=countdown)


@contextmanager
def _released_on_database_loss(claim: steps.StepClaim | None) -> Iterator[None]:
    """A lost database connection retries the task (`autoretry_for`): give its step back so
    that the retry can claim it again (if even that cannot be written, the step falls silent
    and the sweep hands it out)."""
    try:
        yield
    except (OperationalError, InterfaceError):
        if claim is not None:
            try:
                with_reconnect(lambda: steps.step_release(claim.step_id, claim.claimed_at,
                                                          due_in=2), what="sync step",
                               budget=10)
            except (OperationalError, InterfaceError):
                pass
        raise


def _dispatcher_for(reseller_id: int) -> syncing.Dispatcher:
    """Steps handed to Celery workers, each a row first (`sync.steps`): a dead worker's step
    is taken up by another within seconds."""

    def hand_out(kind: str, task, *, run_id: int, attempt: int, expected: int = 1, **kwargs):
        arguments = {"run_id": run_id, "attempt": attempt, **kwargs}
        if kind == SyncStep.Kind.CHUNK:
            arguments["expected"] = expected
        step = steps.step_create(run=SyncRun(pk=run_id, reseller_id=reseller_id),
                                 attempt=attempt, kind=kind, arguments=arguments,
                                 expected=expected)
        task.delay(reseller_id=reseller_id, step_id=step.pk, **arguments)

    return syncing.Dispatcher(
        chunk=lambda **kw: hand_out(SyncStep.Kind.CHUNK, sync_location_chunk_task, **kw),
        account_resource=lambda **kw: hand_out(
            SyncStep.Kind.ACCOUNT, sync_account_resource_task,
            expected=len(kw.get("resources") or [None]), **kw),
        concurrent=True,
    )


def step_task(kind: str):
    """The task that runs a step of this kind (the sweep hands steps out again with it)."""
    return {SyncStep.Kind.WALK: sync_run_task, SyncStep.Kind.CHUNK: sync_location_chunk_task,
            SyncStep.Kind.ACCOUNT: sync_account_resource_task}[kind]


def run_step(func):
    """Run a step inside the scope of the reseller of its run, under the worker's claim on it.

    As `tenant_task` does, but the run comes with its reseller (and scope) in one statement,
    the step's first, instead of the reseller alone and then the run; the pair of ids must
    match, so a message cannot name another reseller's run. A step done already, or taken by
    another worker, is not run (a message delivered twice)."""

    @functools.wraps(func)
    def wrapper(self, *, reseller_id: int, run_id: int, step_id: int | None = None, **kwargs):
        claim = steps.step_take(step_id)
        if claim is False:
            return None
        claim = claim if isinstance(claim, steps.StepClaim) else None
        with _released_on_database_loss(claim):
            run = SyncRun.unscoped.select_related("reseller", "scope").get(
                pk=run_id, reseller_id=reseller_id)
            with tenant_scope(run.reseller):
                return func(self, reseller_id=reseller_id, run_id=run_id, run=run,
                            claim=claim, **kwargs)

    return wrapper


@shared_task(**STEP_OPTIONS)
@run_step
def sync_run_task(self, *, reseller_id: int, run_id: int, run: SyncRun,
                  claim: steps.StepClaim | None) -> None:
    try:
        syncing.sync_walk_and_dispatch(tenant=run.reseller, run_id=run_id, run=run, claim=claim,
                                       dispatcher=_dispatcher_for(reseller_id))
    except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
        return _retry_or_fail(self, run_id, exc, claim)


@shared_task(**STEP_OPTIONS)
def sync_location_chunk_task(self, *, reseller_id: int, run_id: int, attempt: int,
                             expected: int, first_pk: int | None = None,
                             last_pk: int | None = None, remote_ids: list[int] | None = None,
                             resources: list[str] | None = None,
                             step_id: int | None = None) -> None:
    taken = steps.step_take(step_id)
    if taken is False:
        return None  # done, or another worker is on it
    claim = taken if isinstance(taken, steps.StepClaim) else None
    with _released_on_database_loss(claim):
        # The chunk's first read brings its run's reseller, and mostly its locations too.
        run, locations = syncing.location_chunk_read(reseller_id=reseller_id, run_id=run_id,
                                                     attempt=attempt, remote_ids=remote_ids,
                                                     resources=resources)
    with _released_on_database_loss(claim), tenant_scope(run.reseller):
        try:
            syncing.sync_location_chunk(tenant=run.reseller, run_id=run_id, run=run,
                                        locations=locations, attempt=attempt,
                                        first_pk=first_pk, last_pk=last_pk,
                                        remote_ids=remote_ids, expected=expected, claim=claim)
        except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
            return _retry_or_fail(self, run_id, exc, claim)


@shared_task(**STEP_OPTIONS)
@run_step
def sync_account_resource_task(self, *, reseller_id: int, run_id: int, run: SyncRun,
                               attempt: int, claim: steps.StepClaim | None,
                               resource: str | None = None,
                               resources: list[str] | None = None) -> None:
    try:
        syncing.sync_account_resource(tenant=run.reseller, run_id=run_id, run=run,
                                      attempt=attempt, resource=resource, resources=resources,
                                      claim=claim)
    except steps.StepTaken:
        return None
    except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
        return _retry_or_fail(self, run_id, exc, claim)


@shared_task(acks_late=True)
def sync_all_resellers_task(resources: list[str] | None = None) -> int:
    """The periodic schedule: start a run for every active reseller with a key."""
    started = 0
    for reseller in Reseller.objects.filter(status=Reseller.Status.ACTIVE).exclude(
            api_key_encrypted=""):
        with tenant_scope(reseller):
            run, created = syncing.sync_run_create(tenant=reseller, actor=None,
                                                   resources=resources)
            if created:
                syncing.sync_run_dispatch(run)
                started += 1
    return started


@shared_task(acks_late=True)
def sync_sweep_task() -> dict:
    """Hand out again the steps whose worker died or whose task was lost; end stalled runs."""
    return steps.steps_sweep()

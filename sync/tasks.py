"""Celery tasks of a sync: thin wrappers that take ids, enter the tenant scope, call one step.

Every step is idempotent (bulk upserts keyed by remote ids), so they acknowledge late: a worker
killed mid-step leaves the message to be delivered again.
"""

from __future__ import annotations

import functools

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from accounts.models import Reseller, SyncRun
from portal.retries import retry_delay
from portal.tenancy import tenant_scope
from provider import RateLimited, Transient
from sync import services as syncing

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


def _retry_or_fail(task, run_id: int, exc: Exception):
    if task.request.retries >= task.max_retries:
        _give_up(run_id, exc)
        return None
    raise task.retry(exc=exc, countdown=_countdown(task, exc))


def _dispatcher_for(reseller_id: int) -> syncing.Dispatcher:
    return syncing.Dispatcher(
        chunk=lambda **kw: sync_location_chunk_task.delay(reseller_id=reseller_id, **kw),
        account_resource=lambda **kw: sync_account_resource_task.delay(
            reseller_id=reseller_id, **kw),
        concurrent=True,
    )


def run_step(func):
    """Run a step inside the scope of the reseller of its run.

    As `tenant_task` does, but the run comes with its reseller (and scope) in one statement,
    the step's first, instead of the reseller alone and then the run; the pair of ids must
    match, so a message cannot name another reseller's run."""

    @functools.wraps(func)
    def wrapper(self, *, reseller_id: int, run_id: int, **kwargs):
        run = SyncRun.unscoped.select_related("reseller", "scope").get(
            pk=run_id, reseller_id=reseller_id)
        with tenant_scope(run.reseller):
            return func(self, reseller_id=reseller_id, run_id=run_id, run=run, **kwargs)

    return wrapper


@shared_task(**STEP_OPTIONS)
@run_step
def sync_run_task(self, *, reseller_id: int, run_id: int, run: SyncRun) -> None:
    try:
        syncing.sync_walk_and_dispatch(tenant=run.reseller, run_id=run_id, run=run,
                                       dispatcher=_dispatcher_for(reseller_id))
    except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
        return _retry_or_fail(self, run_id, exc)


@shared_task(**STEP_OPTIONS)
def sync_location_chunk_task(self, *, reseller_id: int, run_id: int, attempt: int,
                             expected: int, first_pk: int | None = None,
                             last_pk: int | None = None, remote_ids: list[int] | None = None,
                             resources: list[str] | None = None) -> None:
    # The chunk's first read brings its run's reseller, and mostly its locations too.
    run, locations = syncing.location_chunk_read(reseller_id=reseller_id, run_id=run_id,
                                                 attempt=attempt, remote_ids=remote_ids,
                                                 resources=resources)
    with tenant_scope(run.reseller):
        try:
            syncing.sync_location_chunk(tenant=run.reseller, run_id=run_id, run=run,
                                        locations=locations, attempt=attempt,
                                        first_pk=first_pk, last_pk=last_pk,
                                        remote_ids=remote_ids, expected=expected)
        except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
            return _retry_or_fail(self, run_id, exc)


@shared_task(**STEP_OPTIONS)
@run_step
def sync_account_resource_task(self, *, reseller_id: int, run_id: int, run: SyncRun,
                               attempt: int, resource: str | None = None,
                               resources: list[str] | None = None) -> None:
    try:
        syncing.sync_account_resource(tenant=run.reseller, run_id=run_id, run=run,
                                      attempt=attempt, resource=resource, resources=resources)
    except (RateLimited, Transient, SoftTimeLimitExceeded) as exc:
        return _retry_or_fail(self, run_id, exc)


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
                sync_run_task.delay(reseller_id=reseller.pk, run_id=run.pk)
                started += 1
    return started

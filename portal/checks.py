"""System checks of the portal's own settings.

Django runs them on `manage.py check`, `migrate` and `runserver`. Celery's Django fixup runs
them in the worker too but ignores their errors, so `portal.celery` asks `time_limit_problems`
again when a worker starts and refuses to start on any.
"""

from __future__ import annotations

from django.conf import settings
from django.core import checks


def time_limit_problems(*, soft: float | None, hard: float | None,
                        visibility: float | None) -> list[str]:
    """What is wrong with these task time limits, in plain words (nothing when they are fine).

    `visibility` is the broker's visibility timeout, None for a broker without one (the
    filesystem broker of development).
    """
    problems = []
    if not hard or hard <= 0:
        problems.append("CELERY_TASK_TIME_LIMIT must be a positive number of seconds: "
                        "without it a stuck task holds its worker for ever.")
    if not soft or soft <= 0:
        problems.append("CELERY_TASK_SOFT_TIME_LIMIT must be a positive number of seconds: "
                        "it is what lets a task stop cleanly and retry.")
    elif hard and soft >= hard:
        problems.append(f"CELERY_TASK_SOFT_TIME_LIMIT ({soft:g} s) must be below "
                        f"CELERY_TASK_TIME_LIMIT ({hard:g} s), or tasks are killed before "
                        "they are asked to stop.")
    if visibility is not None and hard and hard >= visibility:
        problems.append(f"CELERY_TASK_TIME_LIMIT ({hard:g} s) must be below the broker's "
                        f"visibility timeout, CELERY_VISIBILITY_TIMEOUT_SECONDS "
                        f"({visibility:g} s): a task still running would be handed to a "
                        "second worker and run twice.")
    return problems


def configured_visibility_timeout() -> float | None:
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None) or {}
    return options.get("visibility_timeout")


@checks.register("celery")
def check_task_time_limits(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    problems = time_limit_problems(
        soft=getattr(settings, "CELERY_TASK_SOFT_TIME_LIMIT", None),
        hard=getattr(settings, "CELERY_TASK_TIME_LIMIT", None),
        visibility=configured_visibility_timeout(),
    )
    return [checks.Error(problem, id="portal.E001") for problem in problems]


# The longest a sending worker waits in its process for a rate-limit slot, or sleeps between
# two attempts (provider.ProviderClient's max_wait_in_process).
PROVIDER_MAX_WAIT_IN_PROCESS = 10.0


def heartbeat_problems(*, stale: float, connect: float, read: float,
                       step_stale: float, heartbeat: float) -> list[str]:
    """What is wrong with the delays after which a worker's work is taken up by another."""
    problems = []
    quiet = connect + read + PROVIDER_MAX_WAIT_IN_PROCESS
    if stale <= quiet:
        problems.append(
            f"OUTBOX_SENDING_STALE_SECONDS ({stale:g} s) must exceed the longest a sending "
            f"worker stays silent: one request's connect and read timeouts and a wait for a "
            f"rate-limit slot ({quiet:g} s). A live send would be taken up by a second worker.")
    if step_stale <= 2 * heartbeat:
        problems.append(
            f"SYNC_STEP_STALE_SECONDS ({step_stale:g} s) must be well above "
            f"SYNC_HEARTBEAT_SECONDS ({heartbeat:g} s): a live step would be taken for dead.")
    return problems


@checks.register()
def check_heartbeats(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    problems = heartbeat_problems(
        stale=settings.OUTBOX_SENDING_STALE_SECONDS, connect=settings.PROVIDER_CONNECT_TIMEOUT,
        read=settings.PROVIDER_READ_TIMEOUT, step_stale=settings.SYNC_STEP_STALE_SECONDS,
        heartbeat=settings.SYNC_HEARTBEAT_SECONDS)
    # A warning: the claim and the in-doubt reading back keep a change from going twice, but
    # live work would be taken up, and waited on, for nothing.
    return [checks.Warning(problem, id="portal.W002") for problem in problems]

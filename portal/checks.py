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

"""Every task runs under a soft and a hard time limit, set in one place, and no configuration
lets a task outlive the broker's visibility timeout (a second worker would run it again)."""

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from portal.celery import app
from portal.checks import check_task_time_limits

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_celery_app_applies_the_limits_of_the_settings():
    soft, hard = app.conf.task_soft_time_limit, app.conf.task_time_limit
    assert (soft, hard) == (settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT)
    assert 0 < soft < hard


def test_no_task_sets_limits_above_the_ones_checked():
    app.loader.import_default_modules()  # registers every app's tasks, as a worker does
    ours = {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}
    # By their function's name: the modules that hold them move between packages.
    assert {name.rsplit(".", 1)[1] for name in ours} >= {"outbox_send_task",
                                                         "sync_location_chunk_task"}
    for name, task in ours.items():
        assert (task.time_limit or 0) <= settings.CELERY_TASK_TIME_LIMIT, name
        assert (task.soft_time_limit or 0) <= settings.CELERY_TASK_SOFT_TIME_LIMIT, name


def _errors(settings, *, soft, hard, visibility):
    settings.CELERY_TASK_SOFT_TIME_LIMIT = soft
    settings.CELERY_TASK_TIME_LIMIT = hard
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = (
        {} if visibility is None else {"visibility_timeout": visibility})
    return [error.msg for error in check_task_time_limits()]


def test_the_check_passes_limits_below_the_visibility_timeout(settings):
    assert _errors(settings, soft=600, hard=660, visibility=900) == []
    assert _errors(settings, soft=600, hard=660, visibility=None) == []  # filesystem broker


def test_the_check_refuses_a_hard_limit_not_below_the_visibility_timeout(settings):
    for hard in (900, 1200):
        [error] = _errors(settings, soft=600, hard=hard, visibility=900)
        assert "must be below the broker's visibility timeout" in error


def test_the_check_refuses_missing_or_inverted_limits(settings):
    assert _errors(settings, soft=600, hard=None, visibility=900)
    assert _errors(settings, soft=None, hard=660, visibility=900)
    [error] = _errors(settings, soft=660, hard=660, visibility=900)
    assert "must be below CELERY_TASK_TIME_LIMIT" in error


def _run(*command):
    # A Redis broker brings its visibility timeout; nothing here ever connects to it.
    env = {**os.environ, "ENV_FILE": "/nonexistent", "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
           "CELERY_VISIBILITY_TIMEOUT_SECONDS": "900", "CELERY_TASK_TIME_LIMIT": "900"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_manage_check_refuses_a_hard_limit_at_the_visibility_timeout():
    result = _run(sys.executable, "manage.py", "check")
    assert result.returncode != 0
    assert "portal.E001" in result.stderr
    assert "must be below the broker's visibility timeout" in result.stderr


def test_a_worker_refuses_to_start_on_a_hard_limit_at_the_visibility_timeout():
    # Celery runs the system checks in a worker but ignores their errors: the worker's own step
    # refuses, before it connects to the broker.
    result = _run(sys.executable, "-m", "celery", "-A", "portal", "worker", "--loglevel", "ERROR")
    assert result.returncode != 0
    assert "must be below the broker's visibility timeout" in result.stdout + result.stderr

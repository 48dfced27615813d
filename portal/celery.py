import os
from pathlib import Path

from celery import Celery, bootsteps, signals
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class RefuseUnsafeTimeLimits(bootsteps.Step):
    """A worker does not start with time limits that let the broker hand a task still running
    to a second worker. Celery's Django fixup runs the system checks but ignores their errors,
    so this step asks again, about the limits this worker really applies (its command line's
    `--time-limit` and `--soft-time-limit` included)."""

    def __init__(self, worker, **kwargs):
        from portal.checks import time_limit_problems

        visibility = (worker.app.conf.broker_transport_options or {}).get("visibility_timeout")
        problems = time_limit_problems(soft=worker.soft_time_limit, hard=worker.time_limit,
                                       visibility=visibility)
        if problems:
            raise ImproperlyConfigured(" ".join(problems))
        super().__init__(worker, **kwargs)


app.steps["worker"].add(RefuseUnsafeTimeLimits)


@app.on_after_configure.connect
def _filesystem_broker_folders(sender, **kwargs):
    # kombu's filesystem transport neither creates its folders nor works without them, on the
    # sending side (the web server) as on the receiving one. This runs in every process once it
    # first reads Celery's configuration, before anything is sent or received.
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@signals.import_modules.connect
def _beat_schedule_folder(sender=None, **kwargs):
    # Beat opens its schedule file before it announces itself (beat_init comes too late) and
    # does not create the folder. Only workers and beat send this signal, before they start.
    schedule = sender.conf.beat_schedule_filename if sender is not None else None
    if schedule:
        Path(schedule).parent.mkdir(parents=True, exist_ok=True)

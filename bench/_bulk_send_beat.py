"""The portal's Celery app with a beat schedule of the two sweeps a bulk change relies on, for
bench/bulk_send.py: `celery -A bench._bulk_send_beat beat`.

The outbox's sweep sends rows whose task was lost or whose retry is due, and the bulk changes'
sweep steps every moving change: both run in production while a change is sent, at
OUTBOX_SWEEP_SECONDS. The rest of the portal's schedule stays out: the sandbox's clock would move
the provider's statuses on the workers the bench measures, and a nightly or hourly task falling
inside a run would make its figures depend on the time of day.
"""

from __future__ import annotations

from django.conf import settings

from portal.celery import app

__all__ = ["app"]

SWEEPS = ("outbox-sweep", "bulk-changes-sweep")

app.conf.beat_schedule = {name: entry for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
                          if name in SWEEPS}

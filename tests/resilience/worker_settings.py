"""Settings of the Celery workers that the resilience tests start and kill.

The portal's own settings, except that the Redis broker hands a killed worker's unacknowledged
message to another worker after seconds instead of kombu's default hour, so that a test can
watch the redelivery. The visibility timeout stays well above the longest step of these tests:
a step still running when it expires would be delivered twice.
"""

from portal.settings import *  # noqa: F403

CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 6,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
# Every task's limits stay below that visibility timeout (the worker refuses to start otherwise).
CELERY_TASK_SOFT_TIME_LIMIT = 4
CELERY_TASK_TIME_LIMIT = 5

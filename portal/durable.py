"""Durable work: rows that say what is to be done, and the tasks that do it.

A row is the truth; a task is only a prompt to look at it. So a task may be lost (the broker
down, restarted, or a message never delivered) or delivered twice: the row's claim makes the
second harmless, and a sweep queues again what was left.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TypeVar

from django.utils import timezone

logger = logging.getLogger(__name__)

T = TypeVar("T")


def task_queue(queue: Callable[[], object], *, what: str) -> bool:
    """Queue a task (`queue` calls its `.delay()`/`.apply_async()`); False, with one warning,
    when the broker refused it: the row stays, and the sweep queues it again."""
    try:
        queue()
    except Exception:  # noqa: BLE001 - any broker failure; the row is what matters
        logger.warning("%s: could not queue its task; the sweep will", what, exc_info=True)
        return False
    return True


def seconds_ago(seconds: float, *, now: datetime | None = None) -> datetime:
    """The moment `seconds` before `now` (a claim or heartbeat older than it is stale)."""
    return (now or timezone.now()) - timedelta(seconds=seconds)


def broker_backlog() -> int | None:
    """Messages waiting in the broker's task queue, or None when it cannot tell (the broker
    down, or a transport that does not count). Unacknowledged messages a worker holds (running,
    or waiting for their countdown) are not counted."""
    from celery import current_app

    try:
        with current_app.connection_for_read() as connection, connection.channel() as channel:
            declared = channel.queue_declare(queue=current_app.conf.task_default_queue,
                                              passive=True)
    except Exception:  # noqa: BLE001 - no answer is an answer: we cannot tell
        logger.info("the broker's backlog could not be read", exc_info=True)
        return None
    return declared.message_count


def with_reconnect(write: Callable[[], T], *, what: str, budget: float = 60.0,
                   sleep: Callable[[float], None] = time.sleep) -> T:
    """Run `write` (a unit of database work that is safe to repeat, e.g. its own transaction);
    when the connection to the database was lost (a restart), connect again and repeat it,
    for up to `budget` seconds, so that work already done elsewhere (a provider's replies
    fetched) is kept rather than redone. Not inside a transaction: the caller's would be lost."""
    from django.db import InterfaceError, OperationalError, connection

    if connection.in_atomic_block:
        return write()
    deadline = time.monotonic() + budget
    delay = 0.25
    while True:
        try:
            return write()
        except (OperationalError, InterfaceError) as exc:
            if time.monotonic() + delay > deadline:
                raise
            logger.warning("%s: the database connection was lost (%s); trying again in %.1f s",
                           what, type(exc).__name__, delay)
            try:
                connection.close()
            except Exception:  # noqa: BLE001, S110 - a dead connection may refuse to close
                pass
            sleep(delay)
            delay = min(delay * 2, 5.0)

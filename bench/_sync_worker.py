"""The portal's Celery app, instrumented for bench/sync.py: `celery -A bench._sync_worker worker`.

Each worker process counts the SQL statements its tasks send (a `connection.execute_wrapper`
installed before every task) and adds them to Redis after every task, so that the bench can sum
the queries of all worker processes without a server-side extension. Transaction control that
Django does not send as a statement (the implicit BEGIN, COMMIT) is not counted; savepoints are.

With BENCH_SYNC_PROFILE_DIR set, every task also runs under pyinstrument and leaves a text
profile there; with BENCH_SYNC_QUERY_LOG_DIR set, every statement is appended to a log per
worker process. Both are for finding where a missed target comes from, not for measured runs.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import redis
from celery import signals
from django.conf import settings
from django.db import connection

from portal.celery import app

__all__ = ["app"]

QUERIES_KEY = "bench-sync:queries"
QUERIES_BY_TASK_KEY = "bench-sync:queries-by-task"
TASKS_KEY = "bench-sync:tasks"
STARTED_KEY = "bench-sync:started"
TIMELINE_KEY = "bench-sync:timeline"
FINISHED_KEY = "bench-sync:finished"
READY_KEY = "bench-sync:worker-ready"

_queries_in_task = 0
_profiler = None
_redis: redis.Redis | None = None


def _store() -> redis.Redis:
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.REDIS_URL)
    return _redis


def _count_query(execute, sql, params, many, context):
    global _queries_in_task
    _queries_in_task += 1
    log_dir = os.environ.get("BENCH_SYNC_QUERY_LOG_DIR")
    if log_dir:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            with open(Path(log_dir) / f"queries-{os.getpid()}.log", "a", encoding="utf-8") as log:
                log.write(f"{elapsed_ms:8.2f} ms  {' '.join(sql.split())[:400]}\n")
    return execute(sql, params, many, context)


def _task_name(task) -> str:
    return task.name.rsplit(".", 1)[-1] if task is not None else "unknown"


@signals.worker_ready.connect
def _announce_ready(**_kwargs) -> None:
    _store().set(READY_KEY, os.getpid())


@signals.task_prerun.connect
def _start_counting(task=None, **_kwargs) -> None:
    global _queries_in_task, _profiler
    _queries_in_task = 0
    pipe = _store().pipeline()
    pipe.incr(STARTED_KEY)
    pipe.rpush(TIMELINE_KEY, f"{time.time():.3f} {os.getpid()} start {_task_name(task)}")
    pipe.execute()
    if _count_query not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count_query)
    if os.environ.get("BENCH_SYNC_PROFILE_DIR"):
        from pyinstrument import Profiler

        _profiler = Profiler()
        _profiler.start()


@signals.task_postrun.connect
def _report_counts(task=None, task_id=None, **_kwargs) -> None:
    global _profiler
    name = _task_name(task)
    pipe = _store().pipeline()
    pipe.rpush(TIMELINE_KEY, f"{time.time():.3f} {os.getpid()} end {name}")
    pipe.incrby(QUERIES_KEY, _queries_in_task)
    pipe.hincrby(QUERIES_BY_TASK_KEY, name, _queries_in_task)
    pipe.hincrby(TASKS_KEY, name, 1)
    pipe.incr(FINISHED_KEY)
    pipe.execute()
    if _profiler is not None:
        _profiler.stop()
        profile_dir = Path(os.environ["BENCH_SYNC_PROFILE_DIR"])
        profile_dir.mkdir(parents=True, exist_ok=True)
        (profile_dir / f"{name}-{task_id}.txt").write_text(
            _profiler.output_text(unicode=False, color=False), encoding="utf-8")
        _profiler = None

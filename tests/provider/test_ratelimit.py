"""The shared rate limiters: never more than ``count`` slots per window, across processes."""

from __future__ import annotations

import multiprocessing
import time
import uuid
from collections.abc import Iterator

import pytest
import redis

from provider import (
    FileRateLimiter,
    NullRateLimiter,
    RateLimitWaitTooLong,
    RedisRateLimiter,
)

REDIS_URL = "redis://127.0.0.1:6379/15"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    connection = redis.Redis.from_url(REDIS_URL)
    try:
        connection.ping()
    except redis.ConnectionError:
        pytest.skip("Redis is not running at 127.0.0.1:6379")
    prefix = f"test-provider-{uuid.uuid4().hex}"
    yield prefix
    for key in connection.scan_iter(f"{prefix}*"):
        connection.delete(key)
    connection.close()


def test_null_limiter_never_waits():
    limiter = NullRateLimiter()
    for _ in range(1000):
        limiter.acquire("fp", 1, 1, max_wait=0)


def test_file_limiter_waits_for_a_slot(tmp_path):
    clock = FakeClock()
    limiter = FileRateLimiter(tmp_path, sleep=clock.sleep, clock=clock)

    limiter.acquire("fp", 2, 10, max_wait=0)
    clock.now += 4
    limiter.acquire("fp", 2, 10, max_wait=0)
    limiter.acquire("fp", 2, 10, max_wait=30)  # full: waits until the first slot frees

    assert clock.slept == [pytest.approx(6)]


def test_file_limiter_refuses_a_wait_over_max_wait(tmp_path):
    clock = FakeClock()
    limiter = FileRateLimiter(tmp_path, sleep=clock.sleep, clock=clock)
    limiter.acquire("fp", 1, 60, max_wait=0)

    with pytest.raises(RateLimitWaitTooLong) as excinfo:
        limiter.acquire("fp", 1, 60, max_wait=5)

    assert excinfo.value.retry_after == pytest.approx(60)
    assert clock.slept == []
    limiter.acquire("other-fp", 1, 60, max_wait=0)  # keys are independent


def test_file_limiter_survives_a_torn_file(tmp_path):
    limiter = FileRateLimiter(tmp_path)
    limiter.acquire("fp", 5, 60, max_wait=0)
    (window_file,) = tmp_path.iterdir()
    window_file.write_text("garbage\n12")

    limiter.acquire("fp", 5, 60, max_wait=0)

    assert "fp" not in window_file.name  # the file name is a hash, not the key


def test_redis_limiter_refuses_a_wait_over_max_wait(redis_prefix):
    limiter = RedisRateLimiter(REDIS_URL, key_prefix=redis_prefix)
    limiter.acquire("fp", 1, 60, max_wait=0)

    with pytest.raises(RateLimitWaitTooLong) as excinfo:
        limiter.acquire("fp", 1, 60, max_wait=0.5)

    assert 58 < excinfo.value.retry_after <= 60
    assert "redis://" not in repr(limiter)


def test_redis_limiter_waits_for_a_slot(redis_prefix):
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    limiter = RedisRateLimiter(REDIS_URL, key_prefix=redis_prefix, sleep=sleep)
    limiter.acquire("fp", 1, 1, max_wait=0)
    limiter.acquire("fp", 1, 1, max_wait=5)

    assert slept and 0 < sum(slept) <= 1.5


# -- across processes --------------------------------------------------------------------------

COUNT, SECONDS, PROCESSES, PER_PROCESS = 3, 1, 2, 4


def _make_limiter(kind: str, location: str):
    if kind == "redis":
        return RedisRateLimiter(REDIS_URL, key_prefix=location)
    return FileRateLimiter(location)


def _take_slots(kind: str, location: str, key: str, results) -> None:
    limiter = _make_limiter(kind, location)  # built in the child: no connection shared by fork
    for _ in range(PER_PROCESS):
        limiter.acquire(key, COUNT, SECONDS, max_wait=30)
        results.put(time.time())


def _run_processes(kind: str, location: str) -> list[float]:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    key = f"fp-{uuid.uuid4().hex[:8]}"
    workers = [
        context.Process(target=_take_slots, args=(kind, location, key, results))
        for _ in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    times = [results.get(timeout=20) for _ in range(PROCESSES * PER_PROCESS)]
    for worker in workers:
        worker.join(timeout=20)
        assert worker.exitcode == 0
    return sorted(times)


# A process can be descheduled between taking its slot and recording the time (on a loaded
# 2-CPU machine, for 130 ms once in a full run); without a limiter the grants would all come
# within a few milliseconds, far below the window even with this slack.
SCHEDULING_SLACK_SECONDS = 0.2


def _assert_within_limit(times: list[float]) -> None:
    # Any COUNT + 1 consecutive grants must span at least one window (minus scheduling slack
    # between taking a slot and recording its time).
    assert len(times) == PROCESSES * PER_PROCESS
    for first, last in zip(times, times[COUNT:], strict=False):
        assert last - first >= SECONDS - SCHEDULING_SLACK_SECONDS


def test_file_limiter_limits_across_processes(tmp_path):
    _assert_within_limit(_run_processes("file", str(tmp_path)))


def test_redis_limiter_limits_across_processes(redis_prefix):
    _assert_within_limit(_run_processes("redis", redis_prefix))


@pytest.mark.parametrize("kind", ["file", "redis"])
def test_a_limiter_tells_when_a_caller_of_the_process_last_waited(kind, tmp_path, request):
    """What a sync reads to tell whether the allowance is used up: a request that took a free
    slot did not wait; one that found the window full did."""
    clock = FakeClock()
    if kind == "file":
        limiter = FileRateLimiter(tmp_path, sleep=clock.sleep, clock=clock)
    else:
        prefix = request.getfixturevalue("redis_prefix")
        limiter = RedisRateLimiter(REDIS_URL, key_prefix=prefix, sleep=time.sleep)
    limiter.acquire("fp", 2, 1, max_wait=5)
    limiter.acquire("fp", 2, 1, max_wait=5)
    assert limiter.last_wait("fp") is None
    before = time.monotonic()
    limiter.acquire("fp", 2, 1, max_wait=5)  # the window is full: it waits
    assert before <= limiter.last_wait("fp") <= time.monotonic()
    assert limiter.last_wait("another") is None
    assert NullRateLimiter().last_wait("fp") is None

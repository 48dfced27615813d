"""Rate limiters shared by every process that uses one API key.

The provider limits requests per API key, and many web and worker processes may use the same
reseller's key at once; a per-process limiter would let them together exceed the limit. So the
limiter state lives outside the process: in Redis (``RedisRateLimiter``, many machines) or in a
lock-protected file (``FileRateLimiter``, one machine, no server).

``acquire(key, count, seconds, max_wait=...)`` blocks until one of ``count`` slots per moving
window of ``seconds`` is free and takes it. When the predicted wait exceeds ``max_wait`` it takes
nothing and raises ``RateLimitWaitTooLong`` whose ``retry_after`` is that wait, so that a worker
can be rescheduled instead of sleeping.

``key`` must be a non-secret identifier of the API key (e.g. its fingerprint), never the key.

``last_wait(key)`` tells when a caller of this process last had to wait for a slot of ``key``
(``time.monotonic()``), or None: requests that no longer wait mean the allowance is not used
up, and a caller with more work may send more at once.

Redis is shared state, not a dependency: while it does not answer, ``RedisRateLimiter`` keeps
each process to its share of the key's limit (``fallback_processes``: how many processes may
use one key at once) in memory, says so once in the log, and tries Redis again every few
seconds. Together the processes then stay under the provider's limit, if less close to it.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from limits import RateLimitItemPerSecond
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from .errors import RateLimitWaitTooLong

__all__ = [
    "FileRateLimiter",
    "MemoryRateLimiter",
    "RedisOutage",
    "NullRateLimiter",
    "RateLimit",
    "RateLimitWaitTooLong",
    "RateLimiter",
    "RedisRateLimiter",
]

logger = logging.getLogger("provider.ratelimit")

# When a slot's predicted release time has already passed (clock skew, a racing process), poll
# again after this long rather than spinning.
_MIN_POLL_SECONDS = 0.01


@dataclass(frozen=True, slots=True)
class RateLimit:
    """``count`` requests per moving window of ``seconds`` (a reseller's configured limit)."""

    count: int
    seconds: int

    def __post_init__(self) -> None:
        _check_limit(self.count, self.seconds)


class RateLimiter(Protocol):
    def acquire(self, key: str, count: int, seconds: int, *, max_wait: float) -> None:
        """Take one slot for ``key``, waiting at most ``max_wait`` seconds for it."""
        ...

    def last_wait(self, key: str) -> float | None:
        """When a caller of this process last waited for a slot of ``key``, or None."""
        ...


def _check_limit(count: int, seconds: int) -> None:
    if count < 1 or seconds < 1:
        raise ValueError("a rate limit needs count >= 1 and seconds >= 1")


class NullRateLimiter:
    """No limit (tests, or a provider account without one)."""

    def acquire(self, key: str, count: int, seconds: int, *, max_wait: float) -> None:
        return None

    def last_wait(self, key: str) -> float | None:
        return None


class _WaitingLimiter:
    """The wait loop shared by both limiters: try to take a slot, else sleep until one frees."""

    def __init__(
        self,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._sleep = sleep
        self._clock = clock
        self._waited_at: dict[str, float] = {}

    def acquire(self, key: str, count: int, seconds: int, *, max_wait: float) -> None:
        _check_limit(count, seconds)
        deadline = self._clock() + max(max_wait, 0.0)
        while True:
            wait = self._try_take(key, count, seconds)
            if wait is None:
                return
            now = self._clock()
            wait = max(wait, _MIN_POLL_SECONDS)
            self._waited_at[key] = time.monotonic()
            if now + wait > deadline:
                raise RateLimitWaitTooLong(wait)
            self._sleep(wait)

    def last_wait(self, key: str) -> float | None:
        return self._waited_at.get(key)

    def _try_take(self, key: str, count: int, seconds: int) -> float | None:
        """Take a slot and return None, or return the seconds until one should be free."""
        raise NotImplementedError


class MemoryRateLimiter(_WaitingLimiter):
    """Moving-window limiter in this process's memory: its threads share it, nothing else.

    What ``RedisRateLimiter`` falls back to while Redis does not answer."""

    def __init__(
        self,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(sleep=sleep, clock=clock)
        self._windows: dict[tuple[str, int, int], deque[float]] = {}
        self._lock = threading.Lock()

    def _try_take(self, key: str, count: int, seconds: int) -> float | None:
        with self._lock:
            window = self._windows.setdefault((key, count, seconds), deque())
            now = self._clock()
            while window and window[0] <= now - seconds:
                window.popleft()
            if len(window) >= count:
                return window[-count] + seconds - now
            window.append(now)
            return None


# What a Redis server that is down or unreachable raises (redis-py's own exceptions).
def _redis_errors() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


# Short socket timeouts: a Redis that does not answer must cost a request little, not hang it.
REDIS_SOCKET_OPTIONS = {"socket_connect_timeout": 1.0, "socket_timeout": 2.0}


class RedisOutage:
    """Whether a Redis server is taken for down, and the one log line about each outage.

    After a failure, Redis is not asked again for ``retry_seconds``; the first call after that
    tries it again, and a success ends the outage (logged once too)."""

    def __init__(self, what: str, *, retry_seconds: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._what = what
        self._retry_seconds = retry_seconds
        self._clock = clock
        self._down_until: float | None = None
        self._lock = threading.Lock()
        self.errors = _redis_errors()

    @property
    def down(self) -> bool:
        with self._lock:
            return self._down_until is not None and self._clock() < self._down_until

    def failed(self, exc: BaseException, fallback: str) -> None:
        with self._lock:
            first = self._down_until is None
            self._down_until = self._clock() + self._retry_seconds
        if first:
            logger.warning("Redis does not answer for the %s (%s): %s until it does",
                           self._what, type(exc).__name__, fallback)

    def recovered(self) -> bool:
        """Note a success; returns whether it ends an outage."""
        with self._lock:
            was_down, self._down_until = self._down_until is not None, None
        if was_down:
            logger.warning("Redis answers again for the %s", self._what)
        return was_down


class RedisRateLimiter(_WaitingLimiter):
    """Moving-window limiter in Redis (the ``limits`` library), shared across machines.

    While Redis does not answer, each process keeps to ``count // fallback_processes`` of the
    limit in memory (at least 1 per window)."""

    def __init__(
        self,
        redis_url: str,
        *,
        key_prefix: str = "provider-ratelimit",
        fallback_processes: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(sleep=sleep, clock=clock)
        if fallback_processes < 1:
            raise ValueError("fallback_processes must be at least 1")
        self._storage = RedisStorage(redis_url, key_prefix=key_prefix, **REDIS_SOCKET_OPTIONS)
        self._strategy = MovingWindowRateLimiter(self._storage)
        self._fallback = MemoryRateLimiter(sleep=sleep, clock=clock)
        self._fallback_processes = fallback_processes
        self.outage = RedisOutage("provider rate limit")

    def __repr__(self) -> str:
        # The URL may carry a Redis password.
        return f"{type(self).__name__}()"

    def _try_take(self, key: str, count: int, seconds: int) -> float | None:
        if not self.outage.down:
            item = RateLimitItemPerSecond(count, seconds)
            try:
                if self._strategy.hit(item, key):
                    self.outage.recovered()
                    return None
                reset_at, _remaining = self._strategy.get_window_stats(item, key)
            except self.outage.errors as exc:
                self.outage.failed(exc, f"each process keeps to 1/{self._fallback_processes} "
                                        "of every key's limit")
            else:
                self.outage.recovered()
                return reset_at - time.time()  # the library's timestamps are wall-clock seconds
        share = max(1, count // self._fallback_processes)
        return self._fallback._try_take(key, share, seconds)


class FileRateLimiter(_WaitingLimiter):
    """Moving-window limiter in lock-protected files: shared by the processes of one host.

    One small file per (key, limit) under ``directory`` holds the start times of the requests
    of the current window; ``fcntl.flock`` serialises the read-modify-write across processes.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(sleep=sleep, clock=clock)
        self._directory = Path(directory)
        self._directory.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self._directory)!r})"

    def _path_for(self, key: str, count: int, seconds: int) -> Path:
        # Hashed so that any key text makes a safe file name; the limit is part of the name
        # so that changing a reseller's limit starts a fresh window instead of misreading one.
        digest = hashlib.sha256(f"{key}\0{count}/{seconds}".encode()).hexdigest()[:32]
        return self._directory / f"{digest}.window"

    def _try_take(self, key: str, count: int, seconds: int) -> float | None:
        path = self._path_for(key, count, seconds)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, "r+", encoding="ascii") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
            now = self._clock()
            window = [t for t in _read_times(handle.read()) if t > now - seconds]
            if len(window) >= count:
                window.sort()
                # The slot frees when the count-th most recent request leaves the window.
                return window[-count] + seconds - now
            window.append(now)
            handle.seek(0)
            handle.truncate()
            handle.write("\n".join(repr(t) for t in window[-count:]))
            handle.flush()
            return None


def _read_times(text: str) -> list[float]:
    times = []
    for line in text.splitlines():
        try:
            times.append(float(line))
        except ValueError:
            continue  # a torn write from a killed process: drop that entry
    return times

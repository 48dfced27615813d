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
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
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
    "NullRateLimiter",
    "RateLimit",
    "RateLimitWaitTooLong",
    "RateLimiter",
    "RedisRateLimiter",
]

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


class RedisRateLimiter(_WaitingLimiter):
    """Moving-window limiter in Redis (the ``limits`` library), shared across machines."""

    def __init__(
        self,
        redis_url: str,
        *,
        key_prefix: str = "provider-ratelimit",
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(sleep=sleep, clock=clock)
        self._storage = RedisStorage(redis_url, key_prefix=key_prefix)
        self._strategy = MovingWindowRateLimiter(self._storage)

    def __repr__(self) -> str:
        # The URL may carry a Redis password.
        return f"{type(self).__name__}()"

    def _try_take(self, key: str, count: int, seconds: int) -> float | None:
        item = RateLimitItemPerSecond(count, seconds)
        if self._strategy.hit(item, key):
            return None
        reset_at, _remaining = self._strategy.get_window_stats(item, key)
        return reset_at - time.time()  # the library's timestamps are wall-clock seconds


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

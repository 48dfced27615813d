"""A rate limit learned instead of configured: a shared pacer that finds the provider's limit.

The provider publishes no rate limit; an agency obtains it from the provider's support, and
most do not. A connection whose limit is ``auto`` is paced by ``AdaptivePacer``: requests are
spaced at a rate that every process using the key shares, the rate grows while the provider
answers and shrinks when it answers 429, and the rate reached is kept for the next run.

The growth has two phases, as congestion control does:
- until the first 429, the rate grows by a share of itself per second (it doubles in about a
  second), so a sync reaches an unknown limit quickly. The first 429 comes well past the limit
  (the rate kept growing while the reply travelled), so the rate is then cut to what the
  provider answered in the second before: that is its limit, measured;
- after a 429 it is cut to ``backoff`` of the rate that met it, remembered as the ceiling, and
  grows back by ``probe`` of the ceiling per second, so it spends most of its time just below
  the limit and meets it again rarely, which is how a raised limit is found too.

The rate grows only while requests wait for their slot: a rate the callers did not use says
nothing about the provider, and one grown unused (while a sync walks its tree, say) would send
far past the limit once they ask for more (as congestion control validates its window).

A 429 cuts once: replies to requests sent before the last cut say nothing about the new rate.

State per key is one small record (rate, ceiling, next send time, last cut, replies counted in
the last two seconds) in a shared store: Redis for many machines, a lock-protected file for the
processes of one host.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .errors import RateLimitWaitTooLong
from .ratelimit import REDIS_SOCKET_OPTIONS, RedisOutage

ResultT = TypeVar("ResultT")


@dataclass(frozen=True, slots=True)
class AdaptivePolicy:
    # Tuned on syncs of 2,000 locations by 16 threads (bench/sync.py against limits of 50 and
    # 100 a second, docs/performance.md; a model of it against 10 to 200 in the tests): from 5
    # a second, growing by half of itself a second, the rate took 8 s of a one-minute sync to
    # reach 100; starting higher or growing faster meets a low limit with more 429s.
    start: float = 20.0  # requests per second of a key never seen before
    floor: float = 0.5
    ceiling_max: float = 10_000.0
    growth: float = 0.6  # before the first 429: a share of the rate added per second
    first_backoff: float = 0.6  # the rate kept after the first 429, as a share of the rate
    backoff: float = 0.93  # the rate kept after a later 429
    return_rate: float = 0.5  # after a 429: a share of the way back to the ceiling per second
    margin: float = 0.02  # the rate returned to quickly: this share below the ceiling
    probe: float = 0.0015  # and a share of the ceiling added per second, to pass it slowly
    quiet_seconds: float = 20.0  # past this long without a 429, the probe speeds up
    cooldown: float = 1.0  # seconds after a cut during which 429s do not cut again
    resume: float = 0.98  # a new run starts at this share of the ceiling (or of the rate)
    pressed_for: float = 1.0  # the rate grows only if a request waited for its slot this recently
    # The first cut trusts the replies of the last second if they are at least this share of
    # the rate (fewer: the callers asked for few, and they say nothing of the limit).
    measured_share: float = 0.3


@dataclass(frozen=True, slots=True)
class PacerState:
    rate: float
    ceiling: float | None = None
    next_at: float = 0.0
    cut_at: float = 0.0
    quiet_since: float = 0.0  # the last cut, or the start of this run
    updated_at: float = 0.0
    pressed_at: float = 0.0  # the last time a request waited for its slot
    second: int = 0  # a second of the clock, and the replies other than 429 received in it
    answered: int = 0
    answered_before: int = 0  # and in the second before it

    @classmethod
    def from_record(cls, record: dict[str, Any] | None, policy: AdaptivePolicy) -> PacerState:
        if not record:
            return cls(rate=policy.start)
        try:
            return cls(**{name: record[name] for name in cls.__slots__ if name in record})
        except TypeError:  # a record from another version: start again
            return cls(rate=policy.start)


class StateStore(Protocol):
    def update(self, key: str, change: Callable[[dict | None], tuple[dict, ResultT]]) -> ResultT:
        """Read the record of ``key``, write what ``change`` returns, atomically."""
        ...

    def read(self, key: str) -> dict | None: ...


class AdaptivePacer:
    """Paces the requests of one key at the rate learned from the provider's replies."""

    def __init__(
        self,
        store: StateStore,
        *,
        policy: AdaptivePolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self.policy = policy or AdaptivePolicy()
        self._sleep = sleep
        self._clock = clock
        self._waited_at: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._store!r})"

    def acquire(self, key: str, *, max_wait: float) -> float:
        """Wait for this key's next send slot and return the time it was taken."""
        now = self._clock()

        def take(record: dict | None) -> tuple[dict, tuple[float, bool]]:
            state = self._resumed(PacerState.from_record(record, self.policy), now)
            slot = max(now, state.next_at)
            if slot - now > max_wait:
                return asdict(state), (slot - now, False)  # nothing taken
            taken = replace(state, next_at=slot + 1.0 / state.rate, updated_at=now,
                            pressed_at=now if slot > now else state.pressed_at)
            return asdict(taken), (slot, True)

        value, taken = self._store.update(key, take)
        if value > now or not taken:
            self._waited_at[key] = time.monotonic()
        if not taken:
            raise RateLimitWaitTooLong(value)
        if value > now:
            self._sleep(value - now)
        return value

    def last_wait(self, key: str) -> float | None:
        """When a caller of this process last waited for a slot of ``key``
        (``time.monotonic()``), or None (as ``RateLimiter.last_wait``)."""
        return self._waited_at.get(key)

    def record(self, key: str, *, limited: bool, sent_at: float) -> None:
        """Learn from one reply: a 429 (``limited``) or any other answer of the provider."""
        now = self._clock()
        policy = self.policy

        def learn(record: dict | None) -> tuple[dict, None]:
            state = PacerState.from_record(record, policy)
            this_second = int(now)
            if this_second == state.second:
                answered, answered_before = state.answered, state.answered_before
            elif this_second == state.second + 1:
                answered, answered_before = 0, state.answered
            else:
                answered, answered_before = 0, 0
            if limited:
                # Replies to requests sent before the last cut, or in the second after it
                # (the window that was already full), say nothing about the new rate.
                if sent_at <= state.cut_at + policy.cooldown:
                    return asdict(state), None
                ceiling = state.rate
                if state.ceiling is None:
                    # The first 429 comes well past the limit (the rate grew while the reply
                    # travelled): what the provider answered in the last second is its limit,
                    # unless the callers asked for too little for it to say so.
                    measured = max(answered, answered_before)
                    if measured >= policy.measured_share * state.rate:
                        ceiling = float(measured)
                    rate = min(state.rate * policy.first_backoff, ceiling * (1 - policy.margin))
                else:
                    # Later ones meet the limit just past it.
                    rate = state.rate * policy.backoff
                rate = max(policy.floor, rate)
                # The wait already promised to others was at the old rate; push the next slot
                # so that the cut takes effect now, not after the queue drains.
                return asdict(replace(state, rate=rate, ceiling=ceiling, cut_at=now,
                                      quiet_since=now,
                                      next_at=max(state.next_at, now) + 1.0 / rate,
                                      updated_at=now, second=this_second, answered=answered,
                                      answered_before=answered_before)), None
            counted = replace(state, second=this_second, answered=answered + 1,
                              answered_before=answered_before, updated_at=now)
            if now - state.pressed_at > policy.pressed_for:
                # The callers asked for less than the rate: a rate they did not use says
                # nothing about the provider, and grown unused it would overshoot later.
                return asdict(counted), None
            state = counted
            if state.ceiling is None:
                per_second = policy.growth * state.rate
            else:
                # Back towards the ceiling quickly, then past it slowly: most of the time is
                # spent just below the limit, and a raised limit is still found.
                # The longer no 429 came, the faster the probe, so that a limit raised by the
                # provider is found in a minute or two.
                target = state.ceiling * (1 - policy.margin)
                quiet = max(1.0, (now - state.quiet_since) / policy.quiet_seconds)
                per_second = (policy.probe * state.ceiling * quiet * quiet
                              + policy.return_rate * max(0.0, target - state.rate))
            # Each answered request adds its share, so the rate grows by per_second each second.
            rate = min(policy.ceiling_max, state.rate + per_second / state.rate)
            return asdict(replace(state, rate=rate)), None

        self._store.update(key, learn)

    def learned_rate(self, key: str) -> float | None:
        """The rate this key runs at now (requests per second), or None if never used."""
        record = self._store.read(key)
        return None if record is None else PacerState.from_record(record, self.policy).rate

    def _resumed(self, state: PacerState, now: float) -> PacerState:
        # A key idle for a while starts its new run a little below what it learned, so that
        # the first seconds of a run do not meet a limit lowered in between.
        if state.updated_at and now - state.updated_at > 60:
            rate = max(state.rate, state.ceiling or 0.0) * self.policy.resume
            return replace(state, rate=max(self.policy.floor, rate), next_at=now,
                           quiet_since=now)
        return state


class FileStateStore:
    """One JSON record per key in a lock-protected file (the processes of one host)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self._directory = Path(directory)
        self._directory.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self._directory)!r})"

    def _path(self, key: str) -> Path:
        return self._directory / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.pace"

    def update(self, key: str, change: Callable[[dict | None], tuple[dict, ResultT]]) -> ResultT:
        fd = os.open(self._path(key), os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, "r+", encoding="ascii") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
            record, result = change(_loads(handle.read()))
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(record))
            handle.flush()
            return result

    def read(self, key: str) -> dict | None:
        try:
            with open(self._path(key), encoding="ascii") as handle:
                fcntl.flock(handle, fcntl.LOCK_SH)
                return _loads(handle.read())
        except FileNotFoundError:
            return None


class MemoryStateStore:
    """One record per key in this process's memory (its threads share it)."""

    def __init__(self) -> None:
        self._records: dict[str, dict] = {}
        self._lock = threading.Lock()

    def update(self, key: str, change: Callable[[dict | None], tuple[dict, ResultT]]) -> ResultT:
        with self._lock:
            record, result = change(self._records.get(key))
            self._records[key] = record
            return result

    def read(self, key: str) -> dict | None:
        with self._lock:
            return self._records.get(key)

    def seed(self, key: str, record: dict | None) -> None:
        with self._lock:
            if key not in self._records and record is not None:
                self._records[key] = record

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


class RedisStateStore:
    """One JSON record per key in Redis, changed in an optimistic transaction (every machine).

    While Redis does not answer, each process paces on its own record, started from the last
    one it saw with the rate (and ceiling) divided by ``fallback_processes``, so that together
    they stay under what was learned; once Redis answers again, the shared record is used."""

    def __init__(self, redis_url: str, *, key_prefix: str = "provider-pace",
                 fallback_processes: int = 4) -> None:
        import redis

        if fallback_processes < 1:
            raise ValueError("fallback_processes must be at least 1")
        self._redis = redis.Redis.from_url(redis_url, **REDIS_SOCKET_OPTIONS)
        self._prefix = key_prefix
        self._fallback = MemoryStateStore()
        self._fallback_processes = fallback_processes
        self._seen: dict[str, dict] = {}
        self.outage = RedisOutage("learned provider rate")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"  # the URL may carry a password

    def _key(self, key: str) -> str:
        return f"{self._prefix}:{key}"

    def update(self, key: str, change: Callable[[dict | None], tuple[dict, ResultT]]) -> ResultT:
        if not self.outage.down:
            try:
                result = self._update_shared(key, change)
            except self.outage.errors as exc:
                self.outage.failed(exc, f"each process paces at 1/{self._fallback_processes} "
                                        "of the rate learned so far")
            else:
                if self.outage.recovered():
                    self._fallback.clear()  # a later outage starts from the shared record
                return result
        self._fallback.seed(key, self._share_of(self._seen.get(key)))
        return self._fallback.update(key, change)

    def _update_shared(self, key: str,
                       change: Callable[[dict | None], tuple[dict, ResultT]]) -> ResultT:
        name = self._key(key)
        outcome: list[ResultT] = []

        def run(pipe: Any) -> None:
            record, result = change(_loads(pipe.get(name)))
            pipe.multi()
            pipe.set(name, json.dumps(record))
            outcome[:] = [result, record]

        self._redis.transaction(run, name)
        self._seen[key] = outcome[1]
        return outcome[0]

    def _share_of(self, record: dict | None) -> dict | None:
        if record is None:
            return None
        share = dict(record)
        for name in ("rate", "ceiling"):
            if isinstance(share.get(name), int | float):
                share[name] = share[name] / self._fallback_processes
        return share

    def read(self, key: str) -> dict | None:
        if not self.outage.down:
            try:
                record = _loads(self._redis.get(self._key(key)))
            except self.outage.errors as exc:
                self.outage.failed(exc, f"each process paces at 1/{self._fallback_processes} "
                                        "of the rate learned so far")
            else:
                self.outage.recovered()
                return record
        return self._fallback.read(key) or self._share_of(self._seen.get(key))


def _loads(text: str | bytes | None) -> dict | None:
    if not text:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None  # a torn write from a killed process: start that key again
    return record if isinstance(record, dict) else None

"""The learned rate limit: the pacer finds a limit it was not told, on a simulated clock, and
shares what it learned between processes and runs."""

import threading
import time

import pytest

from provider import (
    AUTO,
    AdaptivePacer,
    AdaptivePolicy,
    FileStateStore,
    ProviderClient,
    RedisStateStore,
)
from provider.adaptive import PacerState
from provider.errors import RateLimitWaitTooLong
from tests.provider.test_ratelimit import REDIS_URL, redis_prefix  # noqa: F401 - a fixture


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)


class FixedWindowProvider:
    """Answers 429 past ``limit`` requests in a second, as the provider (and the sandbox) do:
    every request counts, answered or not."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.windows: dict[int, int] = {}
        self.answered = 0
        self.limited = 0

    def request(self, at: float) -> bool:
        window = int(at)
        self.windows[window] = self.windows.get(window, 0) + 1
        if self.windows[window] > self.limit:
            self.limited += 1
            return False
        self.answered += 1
        return True


def run(pacer: AdaptivePacer, clock: Clock, provider: FixedWindowProvider, seconds: float,
        latency: float = 0.004) -> None:
    end = clock.now + seconds
    while clock.now < end:
        sent_at = pacer.acquire("key", max_wait=60)
        ok = provider.request(sent_at)
        clock.sleep(latency)
        pacer.record("key", limited=not ok, sent_at=sent_at)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def pacer(tmp_path, clock):
    return AdaptivePacer(FileStateStore(tmp_path), sleep=clock.sleep, clock=clock)


@pytest.mark.parametrize("limit", [10, 50, 100])
def test_an_unknown_limit_is_found_and_held(pacer, clock, limit):
    provider = FixedWindowProvider(limit)
    started = clock.now
    run(pacer, clock, provider, seconds=120)
    elapsed = clock.now - started
    share = provider.answered / (limit * elapsed)
    limited = provider.limited / (provider.answered + provider.limited)
    assert share >= 0.90, f"{share:.3f} of the limit over two minutes, warm-up included"
    assert limited <= 0.02, f"{limited:.2%} of requests answered 429"


def test_a_second_run_starts_from_what_was_learned(pacer, clock):
    run(pacer, clock, FixedWindowProvider(50), seconds=60)
    learned = pacer.learned_rate("key")
    assert 40 <= learned <= 55
    clock.sleep(3600)  # the next day's sync
    provider = FixedWindowProvider(50)
    started = clock.now
    run(pacer, clock, provider, seconds=30)
    share = provider.answered / (50 * (clock.now - started))
    assert share >= 0.95
    assert provider.limited / provider.answered <= 0.02


def test_a_raised_limit_is_found(pacer, clock):
    run(pacer, clock, FixedWindowProvider(20), seconds=60)
    provider = FixedWindowProvider(40)
    run(pacer, clock, provider, seconds=120)
    assert pacer.learned_rate("key") >= 34


def test_a_429_cuts_once_for_the_requests_already_sent(pacer, clock):
    first = pacer.acquire("key", max_wait=10)
    second = pacer.acquire("key", max_wait=10)
    rate = pacer.learned_rate("key")
    pacer.record("key", limited=True, sent_at=first)
    pacer.record("key", limited=True, sent_at=second)  # sent before the cut: no second cut
    assert pacer.learned_rate("key") == pytest.approx(rate * AdaptivePolicy().first_backoff)


def test_a_wait_past_the_allowance_takes_no_slot(pacer, clock):
    policy = AdaptivePolicy()
    for _ in range(int(policy.start) * 3):
        pacer.acquire("key", max_wait=100)
    with pytest.raises(RateLimitWaitTooLong) as caught:
        # The slots are taken up to the clock; asking for none of the wait fails.
        for _ in range(10):
            pacer.acquire("key", max_wait=0.0)
    assert caught.value.retry_after > 0


@pytest.mark.parametrize("kind", ["file", "redis"])
def test_processes_share_one_pace(kind, tmp_path, request):
    """Threads with their own pacer on one store never take the same slot: slots are spaced."""
    if kind == "redis":
        store = RedisStateStore(REDIS_URL, key_prefix=request.getfixturevalue("redis_prefix"))
    else:
        store = FileStateStore(tmp_path)
    slots: list[float] = []
    lock = threading.Lock()

    def worker():
        pacer = AdaptivePacer(store, policy=AdaptivePolicy(start=200.0), sleep=lambda s: None)
        for _ in range(25):
            slot = pacer.acquire("key", max_wait=60)
            with lock:
                slots.append(slot)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    slots.sort()
    gaps = [later - earlier for earlier, later in zip(slots, slots[1:], strict=False)]
    assert len(slots) == 100
    assert min(gaps) >= 1 / 200 * 0.99


def test_the_redis_store_keeps_what_was_learned(redis_prefix):  # noqa: F811
    clock = Clock()
    store = RedisStateStore(REDIS_URL, key_prefix=redis_prefix)
    run(AdaptivePacer(store, sleep=clock.sleep, clock=clock), clock, FixedWindowProvider(30),
        seconds=40)
    again = AdaptivePacer(RedisStateStore(REDIS_URL, key_prefix=redis_prefix), clock=clock)
    assert 25 <= again.learned_rate("key") <= 33
    assert "redis://" not in repr(store)


def test_auto_needs_the_pacer(tmp_path):
    with pytest.raises(ValueError, match="auto"):
        ProviderClient("http://127.0.0.1:1", "k", rate_limit=AUTO, rate_limit_key="r",
                       rate_limiter=None)


class SyncModel:
    """A sync as the workers make it, on a simulated clock: `threads` requests in flight at
    once, each answered after `latency`; a 429 keeps its thread away for the second its
    Retry-After asks, as the client honours it. Requests arrive at a fixed-window provider."""

    def __init__(self, pacer: AdaptivePacer, clock: Clock, provider: FixedWindowProvider, *,
                 threads: int = 16, latency: float = 0.05) -> None:
        self.pacer, self.clock, self.provider = pacer, clock, provider
        self.threads, self.latency = threads, latency

    def run(self, requests: int) -> float:
        """Seconds until `requests` were answered."""
        import heapq
        import random

        rng = random.Random(7)
        started = self.clock.now
        events = [(started + i / 1000, i, "ask", 0.0) for i in range(self.threads)]
        answered = 0
        while answered < requests:
            at, thread, action, sent_at = heapq.heappop(events)
            self.clock.now = at
            if action == "ask":
                slot = self.pacer.acquire("key", max_wait=60)
                arrives = slot + self.latency / 2 + rng.random() * 0.01
                ok = self.provider.request(arrives)
                heapq.heappush(events, (arrives + self.latency / 2, thread,
                                        "ok" if ok else "429", slot))
                continue
            self.pacer.record("key", limited=action == "429", sent_at=sent_at)
            answered += action == "ok"
            wait = 0.002 if action == "ok" else 1.0 + rng.random() * 0.05
            heapq.heappush(events, (at + wait, thread, "ask", 0.0))
        return self.clock.now - started


@pytest.mark.parametrize("limit", [10, 50, 100])
def test_a_sync_of_many_threads_finds_the_limit_and_starts_the_next_one_there(pacer, clock,
                                                                             limit):
    """Half a sync of 2,000 locations by 16 threads: a 429 storm when the limit is first met
    would cost its threads a second each (Retry-After), and a slow warm-up a good part of a
    sync that lasts a minute at 100 a second."""
    provider = FixedWindowProvider(limit)
    seconds = SyncModel(pacer, clock, provider).run(3000)
    assert provider.answered / (limit * seconds) >= 0.90  # warm-up included
    assert provider.limited / (provider.answered + provider.limited) <= 0.01
    clock.sleep(3600)
    provider = FixedWindowProvider(limit)
    seconds = SyncModel(pacer, clock, provider).run(3000)
    assert provider.answered / (limit * seconds) >= 0.97
    assert provider.limited / (provider.answered + provider.limited) <= 0.01


def test_a_rate_the_callers_do_not_use_does_not_grow(pacer, clock):
    """Grown while a sync walks its tree (a few requests a second), the rate would send far
    past the limit when the locations come."""
    start = pacer.policy.start
    for _ in range(120):  # two a second for a minute: never waiting for a slot
        sent_at = pacer.acquire("key", max_wait=60)
        pacer.record("key", limited=False, sent_at=sent_at)
        clock.sleep(0.5)
    assert pacer.learned_rate("key") == pytest.approx(start)


def test_the_first_cut_goes_to_what_the_provider_answered(tmp_path, clock):
    """The first 429 comes after the rate went past the limit: the rate falls to what the
    provider answered in the second before it, not to a share of the rate reached."""
    pacer = AdaptivePacer(FileStateStore(tmp_path), policy=AdaptivePolicy(start=200.0),
                          sleep=clock.sleep, clock=clock)
    for i in range(80):  # the provider answered eighty in a second, the rate is at 200
        clock.now = 1_000_000.0 + i / 80
        sent_at = pacer.acquire("key", max_wait=60)
        pacer.record("key", limited=False, sent_at=sent_at)
    clock.now = 1_000_001.2
    pacer.record("key", limited=True, sent_at=1_000_001.1)
    policy = pacer.policy
    assert pacer.learned_rate("key") == pytest.approx(80 * (1 - policy.margin))
    assert PacerState.from_record(pacer._store.read("key"), policy).ceiling == 80


def test_the_pacer_tells_when_a_caller_of_the_process_last_waited(pacer, clock):
    """As the limiters do: a request sent at once did not wait; one spaced after the last did."""
    pacer.acquire("key", max_wait=10)
    assert pacer.last_wait("key") is None
    before = time.monotonic()
    pacer.acquire("key", max_wait=10)  # the next slot is 1/rate after the first
    assert before <= pacer.last_wait("key") <= time.monotonic()
    assert pacer.last_wait("another") is None

"""Redis is shared state, not a dependency: with it unreachable, the rate limiter and the pacer
keep each process to its share of a key's limit in memory, and say so once in the log."""

from __future__ import annotations

import logging
import socket

import pytest

from provider import AdaptivePacer, RateLimitWaitTooLong, RedisRateLimiter, RedisStateStore


def nowhere() -> str:
    """A Redis URL where nothing listens (a stopped server looks like this)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def test_the_limiter_keeps_to_its_processes_share_while_redis_is_down(caplog):
    caplog.set_level(logging.WARNING, logger="provider.ratelimit")
    clock = Clock()
    limiter = RedisRateLimiter(nowhere(), fallback_processes=4, clock=clock,
                               sleep=lambda seconds: None)
    # 20 a second for the key, shared by 4 processes: 5 for this one.
    for _ in range(5):
        limiter.acquire("reseller-1", 20, 1, max_wait=0)
    with pytest.raises(RateLimitWaitTooLong):
        limiter.acquire("reseller-1", 20, 1, max_wait=0)
    clock.now += 1.01
    limiter.acquire("reseller-1", 20, 1, max_wait=0)  # a new window
    outage_lines = [r for r in caplog.records if "Redis does not answer" in r.getMessage()]
    assert len(outage_lines) == 1
    assert "1/4" in outage_lines[0].getMessage()


def test_a_limit_smaller_than_the_processes_still_lets_one_through():
    limiter = RedisRateLimiter(nowhere(), fallback_processes=8, clock=Clock(),
                               sleep=lambda seconds: None)
    limiter.acquire("reseller-2", 3, 1, max_wait=0)
    with pytest.raises(RateLimitWaitTooLong):
        limiter.acquire("reseller-2", 3, 1, max_wait=0)


def test_the_pacer_paces_at_its_share_of_what_was_learned_while_redis_is_down():
    store = RedisStateStore(nowhere(), fallback_processes=4)
    # What this process last saw of the shared record: 40 a second learned.
    store._seen["reseller-3"] = {"rate": 40.0, "ceiling": 42.0, "next_at": 0.0}
    clock = Clock()
    slept = []
    pacer = AdaptivePacer(store, clock=clock, sleep=slept.append)
    first = pacer.acquire("reseller-3", max_wait=5)
    second = pacer.acquire("reseller-3", max_wait=5)
    assert second - first == pytest.approx(1 / 10)  # 40 / 4 processes
    assert pacer.learned_rate("reseller-3") == pytest.approx(10)

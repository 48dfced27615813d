"""How long to wait between attempts: exponential backoff with full jitter, bounded."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of ``RateLimited`` and ``Transient`` failures.

    ``max_retries``: retries after the first attempt. Retry ``n`` (0-based) waits a uniformly
    random time in ``[0, min(backoff_cap, backoff_base * 2**n)]`` ("full jitter", so that
    workers that failed together do not come back together). A wait longer than
    ``max_wait_in_process`` is not slept: the error is raised with that wait as ``retry_after``
    so that a Celery task can retry later with a countdown.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    max_wait_in_process: float = 10.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.backoff_base < 0 or self.backoff_cap < 0 or self.max_wait_in_process < 0:
            raise ValueError("backoff and wait durations must be >= 0")

    def ceiling(self, retry_number: int) -> float:
        """The longest backoff of retry ``retry_number`` (also the delay suggested to callers)."""
        return min(self.backoff_cap, self.backoff_base * 2.0**retry_number)

    def backoff(self, retry_number: int, rng: random.Random) -> float:
        return rng.uniform(0.0, self.ceiling(retry_number))

"""How long to wait before trying again: one policy for every retry of work that failed for a
passing reason (the provider limiting or failing, a lost connection)."""

from __future__ import annotations


def retry_delay(retries: int, *, base: float, cap: float,
                suggested: float | None = None) -> float:
    """Seconds to wait after the `retries`-th retry (0 after the first failure): the wait the
    provider asked for (Retry-After) when it said one, else `base` doubled at each retry, at
    most `cap`."""
    if suggested:
        return suggested
    return min(cap, base * 2 ** max(0, retries))

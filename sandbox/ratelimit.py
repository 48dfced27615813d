"""Fixed-window request counting per partner, shared by every thread and process.

Each request adds one to the partner's row for the current window with a single
``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` statement. The database makes that statement
atomic (a row lock on PostgreSQL, the write lock on SQLite >= 3.35), so concurrent requests in
any number of server processes never lose a count and each sees its own position in the window.
"""

from __future__ import annotations

import math
import time

from django.db import connection

from sandbox.errors import ApiError
from sandbox.models import PartnerAccount, RateLimitCounter

_TABLE = RateLimitCounter._meta.db_table
_UPSERT = (
    f"INSERT INTO {_TABLE} (partner_id, window_index, hits) VALUES (%s, %s, 1) "  # noqa: S608
    f"ON CONFLICT (partner_id, window_index) DO UPDATE SET hits = {_TABLE}.hits + 1 "
    "RETURNING hits"
)


def count_request(
    partner_id: int, window_seconds: int, now: float | None = None
) -> tuple[int, int]:
    """Count one request; return (hits in the current window including it, window index)."""
    now = time.time() if now is None else now
    window_index = int(now // window_seconds)
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, [partner_id, window_index])
        (hits,) = cursor.fetchone()
    if hits == 1:
        # First request of a new window: old windows are of no further use.
        RateLimitCounter.objects.filter(
            partner_id=partner_id, window_index__lt=window_index - 1
        ).delete()
    return hits, window_index


def enforce_rate_limit(partner: PartnerAccount, now: float | None = None) -> None:
    """Raise the provider's 429 (code 89) once the partner is over its count in this window."""
    now = time.time() if now is None else now
    window = partner.rate_limit_window_seconds
    hits, window_index = count_request(partner.pk, window, now)
    if hits > partner.rate_limit_count:
        retry_after = max(1, math.ceil((window_index + 1) * window - now))
        raise ApiError(429, 89, "Rate limit exceeded", headers={"Retry-After": str(retry_after)})

"""HTTP client of the provider's Reputation and Listings API. Plain Python: no ORM, no settings.

Build one ``ProviderClient(base_url, api_key, ...)`` per reseller from its decrypted key at the
moment of use; everything else (limits, timeouts) is passed in.

Return convention
    Every operation returns typed, frozen dataclasses from ``provider.types``; each carries the
    JSON it was parsed from in ``.raw`` (for the mirror). Operations whose reply is a list (or
    ``{"media": [...]}``) return a ``list`` of such dataclasses, each item with its own ``.raw``.
    Operations whose 200 reply is empty (create listing, update hierarchy, delete all Q&A)
    return ``None``.

Errors (``provider.errors``)
    ``ProviderError(code, message, http_status)`` and its subclasses ``AuthError``,
    ``RateLimited`` (and ``RateLimitWaitTooLong``, raised before sending when the shared limiter
    has no slot soon enough), ``NotFound``, ``Rejected``, ``Transient``.

Retries
    ``RateLimited`` and ``Transient`` are retried in-process at most ``max_retries`` times with
    exponential backoff and full jitter; other errors never are. A wait longer than
    ``max_wait_in_process`` is not slept: the error is raised with ``retry_after`` (seconds) set,
    for a Celery ``retry(countdown=...)``. Once retries are exhausted ``retry_after`` holds a
    suggested delay too.

Outcome unknown
    Create listing, add media, create custom field and subscribe are not safe to send twice.
    They are retried only after a 429 or a connection failure that happened before sending.
    After a read timeout, a dropped connection, a 5xx or an unreadable reply they raise
    ``Transient`` with ``outcome_unknown=True`` and are not retried: the caller reconciles
    (reads the state back) before sending again.

Pagination
    ``iter_competitor_review_metrics``, ``iter_qna`` and ``iter_survey_responses`` yield whole
    pages and never request past the 100000-record window; the returned ``Pages`` has
    ``truncated`` set when the window cut the results short.

Rate limiting (``provider.ratelimit``)
    ``RedisRateLimiter``, ``FileRateLimiter`` (one host, no server) and ``NullRateLimiter``,
    keyed by a non-secret identifier of the API key. ``client.stats`` counts requests sent,
    429s received and retries. With Redis unreachable, the Redis limiter and pacer keep each
    process to its share of the key's limit in memory until Redis answers again.

Writes observed (``ProviderClient.observe_writes``)
    A ``WriteObserver`` hears when each request of a write leaves (after any wait for a
    rate-limit slot) and whether its answer proves it had no effect, so that a caller can record
    durably that a request may have reached the provider before it does.
"""

from .adaptive import AdaptivePacer, AdaptivePolicy, FileStateStore, RedisStateStore
from .client import AUTO, ProviderClient
from .dialects import Dialect
from .errors import (
    AuthError,
    NotFound,
    ProviderError,
    RateLimited,
    RateLimitWaitTooLong,
    Rejected,
    Transient,
    WriteNotRecorded,
)
from .pagination import MAX_WINDOW, Pages, PageWindowExceeded
from .ratelimit import (
    FileRateLimiter,
    MemoryRateLimiter,
    NullRateLimiter,
    RateLimit,
    RateLimiter,
    RedisRateLimiter,
)
from .transport import ClientStats, WriteObserver

__all__ = [
    "AUTO",
    "MAX_WINDOW",
    "AdaptivePacer",
    "AdaptivePolicy",
    "Dialect",
    "FileStateStore",
    "RedisStateStore",
    "AuthError",
    "ClientStats",
    "FileRateLimiter",
    "MemoryRateLimiter",
    "NotFound",
    "NullRateLimiter",
    "PageWindowExceeded",
    "Pages",
    "ProviderClient",
    "ProviderError",
    "RateLimit",
    "RateLimitWaitTooLong",
    "RateLimited",
    "RateLimiter",
    "RedisRateLimiter",
    "Rejected",
    "Transient",
    "WriteNotRecorded",
    "WriteObserver",
]

"""Generic API plumbing: the per-token request limit and the pagination of every list."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache import cache as default_cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from rest_framework import pagination, throttling
from rest_framework.exceptions import ValidationError

from provider import FileRateLimiter, RateLimiter, RateLimitWaitTooLong, RedisRateLimiter

# The local-memory cache is shared only by the threads of one process: a lock of the process
# makes DRF's read-then-write of the window atomic there.
_LOCAL_MEMORY_WINDOW_LOCK = threading.Lock()

_REDIS_WINDOW_LIMITERS: dict[str, RedisRateLimiter] = {}
_REDIS_WINDOW_LIMITERS_LOCK = threading.Lock()


def _redis_window_limiter(redis_url: str) -> RedisRateLimiter:
    """One per process and server, as each holds a connection pool."""
    # The limits library checks redis.__version__ in sys.modules without importing: while
    # another thread (the cache's client) is still importing redis, it reads 0.0.0 and refuses.
    # An import statement waits for that import to finish.
    import redis  # noqa: F401

    with _REDIS_WINDOW_LIMITERS_LOCK:
        if redis_url not in _REDIS_WINDOW_LIMITERS:
            # While Redis does not answer, each process counts on its own, in full: the
            # throttle stays, per process, rather than every request failing.
            _REDIS_WINDOW_LIMITERS[redis_url] = RedisRateLimiter(
                redis_url, key_prefix="api-throttle", fallback_processes=1)
        return _REDIS_WINDOW_LIMITERS[redis_url]


def _cache_backend(cache) -> BaseCache:
    # DRF's default is Django's proxy to the default cache of the current thread.
    return caches[DEFAULT_CACHE_ALIAS] if cache is default_cache else cache


def _shared_window_limiter(backend: BaseCache) -> RateLimiter | None:
    """The limiter that keeps the windows where the throttle's cache lives, shared by every
    process using that cache; None for a cache of another kind."""
    if isinstance(backend, RedisCache):
        return _redis_window_limiter(backend._servers[0])  # the first server takes the writes
    if isinstance(backend, FileBasedCache):
        # Beside the cache's files, in a folder of their own that clearing the cache leaves.
        return FileRateLimiter(Path(backend._dir) / "api-throttle")
    return None


class TokenRateThrottle(throttling.SimpleRateThrottle):
    """Requests per token (per user for session clients), counted atomically.

    DRF's own count reads the window from the cache and writes it back: concurrent requests all
    read the same window and all get through. With Redis or the file cache, the window is kept
    by the provider client's shared moving-window limiters instead, beside that cache: a Redis
    script, or a file under an exclusive `flock`, makes each take-a-slot atomic across threads
    and processes.
    """

    scope = "api"

    def get_cache_key(self, request, view):
        token = request.auth if hasattr(request.auth, "key_hash") else None
        ident = f"token-{token.pk}" if token else f"user-{request.user.pk}"
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request, view):
        self.retry_after = None
        backend = _cache_backend(self.cache)
        limiter = _shared_window_limiter(backend) if self.rate is not None else None
        if limiter is None:
            if isinstance(backend, LocMemCache):
                with _LOCAL_MEMORY_WINDOW_LOCK:
                    return super().allow_request(request, view)
            # Any other cache (none is configured here) counts as DRF does.
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        try:
            # The cache's own key: its KEY_PREFIX and VERSION keep configurations apart.
            limiter.acquire(self.cache.make_key(self.key), self.num_requests, self.duration,
                            max_wait=0)
        except RateLimitWaitTooLong as exc:
            self.retry_after = exc.retry_after
            return False
        return True

    def wait(self):
        return self.retry_after if self.retry_after is not None else super().wait()


_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


class LimitOffset(pagination.LimitOffsetPagination):
    """`limit` (1 to 500, default 50) and `offset` (0 or more), read exactly as the schema
    states them: anything else is a 400 naming the parameter, never a silent default."""

    default_limit = 50
    max_limit = 500

    def _whole_number(self, request, name: str, default: int, minimum: int,
                      maximum: int | None = None) -> int:
        given = request.query_params.get(name)
        if given is None:
            return default
        if not _WHOLE_NUMBER.fullmatch(given):
            raise ValidationError({name: ["Give a whole number."]})
        value = int(given)
        if value < minimum or (maximum is not None and value > maximum):
            bounds = f"from {minimum} to {maximum}" if maximum is not None else \
                f"of {minimum} or more"
            raise ValidationError({name: [f"Give a whole number {bounds}."]})
        return value

    def get_limit(self, request):
        return self._whole_number(request, self.limit_query_param, self.default_limit, 1,
                                  self.max_limit)

    def get_offset(self, request):
        return self._whole_number(request, self.offset_query_param, 0, 0)

    def get_schema_operation_parameters(self, view):
        bounds = {self.limit_query_param: {"minimum": 1, "maximum": self.max_limit,
                                           "default": self.default_limit},
                  self.offset_query_param: {"minimum": 0, "default": 0}}
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters

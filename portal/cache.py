"""The Redis cache as a cache, not a dependency.

Django's `RedisCache` raises when Redis does not answer, and every request that touches the
cache (the API's throttle, the sync's chunk counts, a pending import) would answer 500 with
it. `TolerantRedisCache` serves from the process's own memory meanwhile: what is cached is lost
or counted per process for the outage, never an error. The outage is logged once, Redis is
tried again every few seconds, and the short socket timeouts of `REDIS_SOCKET_OPTIONS` keep a
Redis that does not answer from holding up a request.
"""

from __future__ import annotations

import functools

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

from provider.ratelimit import REDIS_SOCKET_OPTIONS, RedisOutage

# BaseCache's operations that reach the server; the others are built on these.
_OPERATIONS = ("add", "get", "set", "touch", "delete", "get_many", "has_key", "incr",
               "set_many", "delete_many", "clear")


class TolerantRedisCache(RedisCache):
    def __init__(self, server, params):
        options = {**REDIS_SOCKET_OPTIONS, **params.get("OPTIONS", {})}
        super().__init__(server, {**params, "OPTIONS": options})
        self._fallback = LocMemCache(f"redis-fallback-{id(self)}", {
            "TIMEOUT": params.get("TIMEOUT", 300), "OPTIONS": {"MAX_ENTRIES": 10_000},
            "KEY_PREFIX": params.get("KEY_PREFIX", ""), "VERSION": params.get("VERSION", 1)})
        self.outage = RedisOutage("cache")


def _tolerant(name: str):
    shared = getattr(RedisCache, name)

    @functools.wraps(shared)
    def operation(self, *args, **kwargs):
        if not self.outage.down:
            try:
                result = shared(self, *args, **kwargs)
            except self.outage.errors as exc:
                self.outage.failed(exc, "this process's own memory serves as the cache")
            else:
                if self.outage.recovered():
                    # What was cached here during the outage is not what Redis holds.
                    self._fallback.clear()
                return result
        return getattr(self._fallback, name)(*args, **kwargs)

    return operation


for _name in _OPERATIONS:
    setattr(TolerantRedisCache, _name, _tolerant(_name))

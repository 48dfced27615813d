"""Redis is a cache, not a dependency: with the Redis server stopped, the cache serves from the
process's memory, the API answers (its throttle counting in the process), and nothing is a 500.

The test starts a redis-server of its own and stops it: never the machine's shared one."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import caches
from django.urls import reverse

from accounts.models import Role
from portal.api.base import TokenRateThrottle
from tests.factories import MembershipFactory, token_client
from tests.servers import RedisServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path).start()
    yield server
    server.stop()


@pytest.fixture
def tolerant_cache(settings, redis_server):
    settings.CACHES = {"default": {"BACKEND": "portal.cache.TolerantRedisCache",
                                   "LOCATION": f"{redis_server.url}/0"}}
    return caches["default"]


def test_the_cache_serves_from_memory_while_redis_is_down_and_from_redis_after(
        tolerant_cache, redis_server, caplog):
    caplog.set_level(logging.WARNING)
    tolerant_cache.set("kept", "in redis")
    redis_server.stop()
    assert tolerant_cache.get("kept", "gone") == "gone"  # lost for the outage, not an error
    tolerant_cache.set("meanwhile", 1)
    assert tolerant_cache.get("meanwhile") == 1
    assert tolerant_cache.add("counted", 0) and tolerant_cache.incr("counted") == 1
    assert [r for r in caplog.records if "Redis does not answer for the cache" in r.message]
    assert sum("Redis does not answer" in r.message for r in caplog.records) == 1

    redis_server.start()
    tolerant_cache.outage._down_until = 0  # past the pause between tries
    assert tolerant_cache.get("meanwhile", "not in redis") == "not in redis"
    tolerant_cache.set("after", "in redis again")
    assert tolerant_cache.get("after") == "in redis again"


def test_the_api_answers_while_redis_is_down_and_still_throttles_per_process(
        tolerant_cache, redis_server, monkeypatch):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api": "3/min"})
    membership = MembershipFactory(role=Role.VIEWER)
    client = token_client(membership)
    url = reverse("api_business_list", args=[membership.reseller.slug])
    assert client.get(url).status_code == 200
    redis_server.stop()
    answers = [client.get(url) for _ in range(4)]
    # The process counts the window afresh from the outage on: three more, then refused.
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert int(answers[-1]["Retry-After"]) > 0

"""The per-token throttle holds under concurrent requests: of a burst fired at once at the live
server, exactly the rate's number get through and every other one gets 429, whichever cache the
portal is configured with (the file cache of the embedded setup, Redis, or the local memory one
of the tests)."""

from __future__ import annotations

import os
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.urls import reverse

from accounts.models import Role
from accounts.tokens import api_token_create
from portal.api.base import TokenRateThrottle
from portal.tenancy import tenant_scope
from tests.factories import MembershipFactory
from tests.live import join_live_server_requests

pytestmark = pytest.mark.django_db(transaction=True)

RATE = 20
BURST = 60

CACHE_BACKENDS = {
    "file": lambda tmp_path: {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                              "LOCATION": str(tmp_path / "cache")},
    "redis": lambda tmp_path: {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                               "LOCATION": os.environ["REDIS_URL"],
                               # Counts of earlier runs, whose token ids may repeat, stay apart.
                               "KEY_PREFIX": f"throttle-test-{uuid.uuid4()}"},
    "locmem": lambda tmp_path: {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                "LOCATION": f"throttle-test-{uuid.uuid4()}"},
}


@pytest.fixture(params=list(CACHE_BACKENDS))
def cache_backend(request, settings, tmp_path):
    if request.param == "redis" and not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: no Redis to throttle through")
    settings.CACHES = {"default": CACHE_BACKENDS[request.param](tmp_path)}
    return request.param


@pytest.fixture
def small_rate(monkeypatch):
    # DRF copies the rates onto the class when it is defined: patch them there.
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api": f"{RATE}/min"})


def token_for(role=Role.VIEWER, reseller=None):
    membership = MembershipFactory(role=role, **({"reseller": reseller} if reseller else {}))
    with tenant_scope(membership.reseller):
        _, plaintext = api_token_create(tenant=membership.reseller, actor=None,
                                        user=membership.user, name="burst", role=role)
    return membership, plaintext


def burst(url: str, token: str, count: int) -> list[requests.Response]:
    """`count` requests released together, each on its own connection."""
    start = threading.Barrier(count)

    def one(_):
        start.wait(timeout=30)
        # Without "close" the live server's thread would wait on the kept-alive connection.
        return requests.get(url, headers={"Authorization": f"Bearer {token}",
                                          "Connection": "close"}, timeout=60)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


def test_a_concurrent_burst_gets_exactly_the_rate_through(live_server, cache_backend,
                                                          small_rate):
    membership, token = token_for()
    url = live_server.url + reverse("api_business_list", args=[membership.reseller.slug])
    try:
        responses = burst(url, token, BURST)
        statuses = sorted(response.status_code for response in responses)
        assert statuses == [200] * RATE + [429] * (BURST - RATE), statuses
        for limited in (r for r in responses if r.status_code == 429):
            assert limited.json()["code"] == "throttled"
            assert 0 < int(limited.headers["Retry-After"]) <= 60

        # The window is full for this token only: another token of the reseller gets through.
        _, other_token = token_for(reseller=membership.reseller)
        assert burst(url, token, 1)[0].status_code == 429
        assert burst(url, other_token, 1)[0].status_code == 200
    finally:
        join_live_server_requests()

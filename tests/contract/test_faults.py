"""The sandbox's injected faults as the client sees them: HTTP 500s become ``Transient`` (retried
for reads, ``outcome_unknown`` for writes) and a 429 is retried in-process once the window
allows."""

from __future__ import annotations

import time

import pytest

from provider import NullRateLimiter, Transient
from provider.types import MediaUpload
from sandbox.models import MediaItem, PartnerAccount, RateLimitCounter
from sandbox.seeding import seed_partner

from .conftest import KEY, LIVE_DB, LOCATIONS, SEED

pytestmark = LIVE_DB


def test_injected_server_errors_are_transient(make_client, transactional_db, dialect):
    seeded = seed_partner(api_key=KEY, locations=LOCATIONS, seed=SEED, error_rate=1.0,
                           dialect=dialect)
    location = seeded["location_numbers"][0]
    client = make_client(max_retries=1, backoff_base=0.01)

    with pytest.raises(Transient) as read:
        client.get_media(location)
    assert (read.value.code, read.value.http_status, read.value.outcome_unknown) == (
        500,
        500,
        False,
    )
    assert (client.stats.requests, client.stats.retries) == (2, 1)  # a read is retried

    before = MediaItem.objects.count()
    with pytest.raises(Transient) as write:
        client.add_media(location, [MediaUpload("https://cdn.example.com/a.jpg", "TEAMS", "PHOTO")])
    assert write.value.outcome_unknown is True  # a write is not repeated after a 5xx
    assert (client.stats.requests, client.stats.retries) == (3, 1)
    assert MediaItem.objects.count() == before


def test_a_rate_limited_read_is_retried_when_the_window_turns(make_client, transactional_db,
                                                               dialect):
    seeded = seed_partner(api_key=KEY, locations=LOCATIONS, seed=SEED, rate_limit=(1, 1),
                           dialect=dialect)
    partner = PartnerAccount.objects.get(account_number=seeded["account_number"])
    client = make_client(
        rate_limiter=NullRateLimiter(),
        rate_limit_key="contract-key-id",
        rate_limit=(1, 1),
        max_retries=2,
        backoff_base=0.01,
    )
    if time.time() % 1 > 0.5:  # leave the request time to land in the exhausted window
        time.sleep(1 - time.time() % 1)
    RateLimitCounter.objects.create(partner=partner, window_index=int(time.time()), hits=1)
    started = time.monotonic()

    children = client.child_businesses(seeded["account_number"])

    assert set(seeded["sub_reseller_ids"]) <= {child.id for child in children}
    assert (client.stats.rate_limited, client.stats.retries, client.stats.requests) == (1, 1, 2)
    # It waited for the sandbox's Retry-After (1 s here) rather than its own 10 ms backoff,
    # which would have met the same exhausted window twice more and given up.
    assert 1.0 <= time.monotonic() - started < 3.0

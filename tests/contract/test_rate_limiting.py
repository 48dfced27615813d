"""The shared rate limiter keeps a client under the partner's limit at the sandbox.

The sandbox counts fixed windows at arrival; the client's limiter counts a moving window at
sending. When a window's first request takes a few milliseconds longer to arrive than the one
sent a second later, both land in one fixed window: with the client at exactly 20/1 s, about
one run in six met a single 429. The client is therefore configured one request under the
partner's limit (19/1 s), the margin a deployment needs too (its in-process retries absorb
the rare 429 otherwise)."""

from __future__ import annotations

import time

import pytest

from provider import FileRateLimiter, NullRateLimiter, RateLimited
from sandbox.models import RateLimitCounter
from sandbox.seeding import seed_partner

from .conftest import KEY, LIVE_DB, LOCATIONS, SEED

pytestmark = LIVE_DB

PARTNER_LIMIT = (20, 1)  # 20 requests per 1-second window at the sandbox
REQUESTS = 60


@pytest.fixture
def limited(transactional_db, dialect) -> dict:
    return seed_partner(api_key=KEY, locations=LOCATIONS, seed=SEED, rate_limit=PARTNER_LIMIT,
                        dialect=dialect)


def burst(client, seeded, count: int) -> int:
    """Send ``count`` requests; return the most hits the sandbox counted in one window."""
    account, location = seeded["account_number"], seeded["location_numbers"][0]
    most = 0
    for index in range(count):
        if index % 2:
            client.child_businesses(account)
        else:
            client.get_media(location)
        # The sandbox prunes old windows, so look after every request.
        most = max(most, *RateLimitCounter.objects.values_list("hits", flat=True))
    return most


def test_the_file_rate_limiter_keeps_the_client_under_the_partner_limit(
    make_client, limited, tmp_path
):
    client = make_client(
        rate_limiter=FileRateLimiter(tmp_path),
        rate_limit_key="contract-key-fingerprint",
        rate_limit=(PARTNER_LIMIT[0] - 1, PARTNER_LIMIT[1]),
    )
    started = time.monotonic()

    most_in_a_window = burst(client, limited, REQUESTS)  # max_retries=0: a 429 would raise

    elapsed = time.monotonic() - started
    assert (client.stats.requests, client.stats.rate_limited, client.stats.retries) == (
        REQUESTS,
        0,
        0,
    )
    assert most_in_a_window <= PARTNER_LIMIT[0]
    # 60 requests at 19 per moving second need at least 3 seconds: the limiter really waited.
    assert elapsed >= 3.0


def test_without_the_limiter_the_same_client_is_rate_limited(make_client, limited):
    """The control: the sandbox does enforce the limit the test above stays under."""
    client = make_client(
        rate_limiter=NullRateLimiter(),
        rate_limit_key="contract-key-fingerprint",
        rate_limit=(20, 1),
    )
    with pytest.raises(RateLimited) as caught:
        burst(client, limited, 200)  # the first 429 ends it, after about 21 requests
    assert caught.value.code == 89
    assert client.stats.rate_limited == 1
    assert client.stats.requests > PARTNER_LIMIT[0]

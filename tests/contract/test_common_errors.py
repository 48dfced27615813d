"""Errors every operation can meet, for every operation: a wrong key, the partner's rate limit,
an unknown business, and another partner's business. Each call is otherwise valid (the same
call succeeds in ``test_every_operation_succeeds``), so the error is the one under test."""

from __future__ import annotations

import dataclasses

import pytest

from provider import AuthError, NotFound, RateLimited
from provider.ratelimit import NullRateLimiter
from sandbox.seeding import seed_partner

from .conftest import (
    LIVE_DB,
    OPERATIONS,
    OTHER_KEY,
    UNKNOWN_NUMBER,
    exhaust_rate_limit,
    requests_seen,
    stored_counts,
)

pytestmark = LIVE_DB

NAMES = sorted(OPERATIONS)


def test_the_table_covers_every_operation_of_the_client():
    from provider import ProviderClient

    public = {
        name
        for name in vars(ProviderClient)
        if not name.startswith("_") and callable(getattr(ProviderClient, name))
    }
    helpers = {"close", "iter_competitor_review_metrics", "iter_qna", "iter_survey_responses"}
    assert public - helpers == set(OPERATIONS)
    assert len(OPERATIONS) == 17  # the 16 operations of interface.md and subscribe


@pytest.mark.parametrize("name", NAMES)
def test_every_operation_succeeds(name, client, ids):
    result = OPERATIONS[name](client, ids)
    if name in ("create_listing", "update_hierarchy", "delete_all_qna"):
        assert result is None  # empty 200 replies
    else:
        assert result is not None
    assert client.stats.requests == 1
    assert requests_seen(ids.partner_id) == 1  # the sandbox saw exactly that one request


@pytest.mark.parametrize("name", NAMES)
def test_an_invalid_key_is_an_auth_error(name, make_client, ids):
    client = make_client(key="contract-test-key-not-issued")
    before = stored_counts(ids.partner_id)
    with pytest.raises(AuthError) as caught:
        OPERATIONS[name](client, ids)
    assert (caught.value.code, caught.value.http_status) == (1161, 401)
    assert caught.value.operation == name
    assert caught.value.message == "Invalid API key"
    assert client.stats.requests == 1
    assert stored_counts(ids.partner_id) == before


@pytest.mark.parametrize("name", NAMES)
def test_over_the_rate_limit_is_rate_limited(name, make_client, ids):
    exhaust_rate_limit(ids.partner_id)
    client = make_client(
        rate_limiter=NullRateLimiter(), rate_limit_key="contract-key-id", rate_limit=(5, 3600)
    )
    before = stored_counts(ids.partner_id)
    with pytest.raises(RateLimited) as caught:
        OPERATIONS[name](client, ids)
    error = caught.value
    assert (error.code, error.http_status, error.operation) == (89, 429, name)
    assert error.outcome_unknown is False  # a 429 was refused before processing
    assert error.retry_after is not None and error.retry_after > 0
    assert (client.stats.requests, client.stats.rate_limited, client.stats.retries) == (1, 1, 0)
    assert stored_counts(ids.partner_id) == before


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_business_is_not_found(name, client, ids):
    before = stored_counts(ids.partner_id)
    with pytest.raises(NotFound) as caught:
        OPERATIONS[name](client, ids.unknown())
    expected = 1175 if name == "location_status" else 1011
    assert (caught.value.code, caught.value.http_status) == (expected, 404)
    assert str(UNKNOWN_NUMBER) in caught.value.message
    assert stored_counts(ids.partner_id) == before


@pytest.mark.parametrize("name", ["get_media", "location_status", "child_businesses", "get_qna"])
def test_another_partners_business_is_not_found(name, make_client, client, ids):
    other = seed_partner(api_key=OTHER_KEY, locations=2, seed=6)
    theirs = dataclasses.replace(
        ids.unknown(), account=other["account_number"], location=other["location_numbers"][0]
    )
    OPERATIONS[name](make_client(key=OTHER_KEY), theirs)  # their key reaches their business
    with pytest.raises(NotFound) as caught:
        OPERATIONS[name](client, theirs)  # ours does not
    assert caught.value.code == (1175 if name == "location_status" else 1011)

"""Every operation, with valid arguments and then with each error any operation can meet: an
unknown business, an invalid key and the partner's rate limit.

The four checks share one test per operation because each test seeds and flushes the sandbox
(see conftest); they run in an order where none disturbs the next."""

from __future__ import annotations

import dataclasses

import pytest

from provider import AuthError, NotFound, ProviderClient, RateLimited
from provider.ratelimit import NullRateLimiter
from sandbox.seeding import seed_partner

from .conftest import (
    LIVE_DB,
    OPERATIONS,
    OTHER_KEY,
    exhaust_rate_limit,
    requests_seen,
    stored_counts,
)

EMPTY_REPLIES = {"create_listing", "update_hierarchy", "delete_all_qna"}
# The provider files an unknown business under 401 on these, under 404 elsewhere.
UNKNOWN_UNDER_401 = {"add_media", "get_media", "update_hierarchy"}


def test_the_table_covers_every_operation_of_the_client():
    public = {
        name
        for name, value in vars(ProviderClient).items()
        if not name.startswith("_") and callable(value)
    }
    helpers = {"close", "observe_writes", "iter_competitor_review_metrics", "iter_qna",
               "iter_survey_responses"}
    assert public - helpers == set(OPERATIONS)
    assert len(OPERATIONS) == 17  # the 16 operations of interface.md and subscribe


@LIVE_DB
@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_each_operation_and_the_errors_every_operation_meets(name, make_client, client, ids):
    call = OPERATIONS[name]

    # Valid arguments: one request, a typed result (None for the empty 200 replies).
    result = call(client, ids)
    assert (result is None) == (name in EMPTY_REPLIES), result
    assert client.stats.requests == 1
    assert requests_seen(ids.partner_id) == 1, "the sandbox saw exactly that one request"
    before = stored_counts(ids.partner_id)

    # Every business number unknown: NotFound, 1175 for the location status report.
    with pytest.raises(NotFound) as unknown:
        call(client, ids.unknown())
    expected = (
        (1175, 404, "No business found with the given id")
        if name == "location_status"
        else (1011, 401 if name in UNKNOWN_UNDER_401 else 404, "Business id is invalid")
    )
    assert (unknown.value.code, unknown.value.http_status, unknown.value.message) == expected
    assert unknown.value.operation == name

    # A key the sandbox never issued: AuthError 1161.
    stranger = make_client(key="contract-test-key-not-issued")
    with pytest.raises(AuthError) as invalid:
        call(stranger, ids)
    assert (invalid.value.code, invalid.value.http_status) == (1161, 401)
    assert (invalid.value.message, invalid.value.operation) == ("Invalid API key", name)

    # Over the partner's limit, with no local limiter and no retry: RateLimited 89.
    exhaust_rate_limit(ids.partner_id)
    hasty = make_client(
        rate_limiter=NullRateLimiter(), rate_limit_key="contract-key-id", rate_limit=(5, 3600)
    )
    with pytest.raises(RateLimited) as limited:
        call(hasty, ids)
    error = limited.value
    assert (error.code, error.http_status, error.operation) == (89, 429, name)
    assert error.outcome_unknown is False  # a 429 was refused before processing
    assert error.retry_after is not None and error.retry_after > 0
    assert (hasty.stats.requests, hasty.stats.rate_limited, hasty.stats.retries) == (1, 1, 0)

    assert stored_counts(ids.partner_id) == before, "no refused call changed anything"


@LIVE_DB
def test_another_partners_business_is_not_found(make_client, client, ids, dialect):
    other = seed_partner(api_key=OTHER_KEY, locations=2, seed=6, dialect=dialect)
    theirs = dataclasses.replace(
        ids.unknown(), account=other["account_number"], location=other["location_numbers"][0]
    )
    owner = make_client(key=OTHER_KEY)
    for name in ("get_media", "location_status", "child_businesses", "get_qna"):
        OPERATIONS[name](owner, theirs)  # their key reaches their business ...
        with pytest.raises(NotFound) as caught:
            OPERATIONS[name](client, theirs)  # ... ours does not
        assert caught.value.code == (1175 if name == "location_status" else 1011), name

"""Every error of the spec's tables maps to its typed error, with code, message and status."""

from __future__ import annotations

import datetime as dt
import pickle

import pytest

from provider import (
    AuthError,
    NotFound,
    ProviderError,
    RateLimited,
    Rejected,
    Transient,
)
from provider.errors import error_body_fields, error_from_reply

from .helpers import url

DAY = dt.date(2024, 1, 1)

# (operation call, method, path) for the operations the error table names.
OPERATIONS = {
    "create_listing": (lambda c: c.create_listing(1, {}), "POST", "/v1/listing/1/create"),
    "location_status": (lambda c: c.location_status(1), "GET", "/v1/listing/status/location"),
    "add_media": (lambda c: c.add_media(1, []), "POST", "/v1/business/1/upload/media"),
    "create_custom_field": (
        lambda c: c.create_custom_field(1, {"fieldName": "x", "type": "TEXT"}),
        "POST",
        "/v1/business/public/custom-fields/create",
    ),
    "survey_responses": (
        lambda c: c.survey_responses(1, business_number=2, start_date=DAY, end_date=DAY),
        "POST",
        "/v1/survey/ext/list/responses/1",
    ),
    "unsubscribe": (
        lambda c: c.unsubscribe("s-1", account_number=1),
        "GET",
        "/v1/subscriptions/unsubscribe/s-1",
    ),
    "category_list": (
        lambda c: c.category_list(1, source_name="NOPE", country_code="US"),
        "GET",
        "/v1/listing/1/category-list",
    ),
    "review_count_by_rating": (
        lambda c: c.review_count_by_rating(1, from_date=DAY, to_date=DAY),
        "POST",
        "/v1/review/report/count-by-rating/1",
    ),
    "competitor_review_metrics": (
        lambda c: c.competitor_review_metrics(1, from_date=DAY, to_date=DAY, brand_ids=range(6)),
        "POST",
        "/v1/competitors/review/metrics",
    ),
    "get_media": (lambda c: c.get_media(1), "GET", "/v1/business/1/media/get"),
}


@pytest.mark.parametrize(
    ("operation", "status", "code", "message", "expected"),
    [
        ("get_media", 429, 89, "Rate limit exceeded", RateLimited),
        ("unsubscribe", 500, 1005, "Subscription not found for the id", NotFound),
        ("get_media", 404, 1011, "Business id is invalid", NotFound),
        ("location_status", 400, 1043, "Business must be an SMB or enterprise location", Rejected),
        ("get_media", 401, 1161, "Invalid API key", AuthError),
        ("review_count_by_rating", 401, 1167, "API key is missing", AuthError),
        ("location_status", 404, 1175, "No business found", NotFound),
        ("survey_responses", 400, 1315, "Invalid survey", Rejected),
        ("add_media", 400, 2174, "Unsupported media format", Rejected),
        ("create_custom_field", 400, 5022, "Another custom field with same name", Rejected),
        ("category_list", 400, 400, "Source name not found", Rejected),
        ("create_listing", 400, 2296, "Invalid food delivery link", Rejected),
        ("create_listing", 400, 2514, "Opening soon date is mandatory", Rejected),
        ("competitor_review_metrics", 400, 2466, "Invalid input request", Rejected),
        ("get_media", 400, 1164, "Invalid result count value", Rejected),
    ],
)
@pytest.mark.parametrize("shape", ["current", "old"])
def test_error_codes_map_to_typed_errors(
    make_client, stub, operation, status, code, message, expected, shape
):
    call, method, path = OPERATIONS[operation]
    body = (
        {"code": code, "message": message}
        if shape == "current"
        else {"errorCode": code, "errorMessage": message}
    )
    stub.add(method, url(path), json=body, status=status)
    client = make_client(max_retries=0)

    with pytest.raises(expected) as excinfo:
        call(client)

    error = excinfo.value
    assert (error.code, error.message, error.http_status) == (code, message, status)
    assert error.operation == operation
    assert type(error) is expected  # not a broader or narrower class
    assert message in str(error)


def test_plain_5xx_is_transient():
    error = error_from_reply(503, None)
    assert isinstance(error, Transient)
    assert error.code is None
    assert "503" in error.message


def test_4xx_without_a_body_is_rejected_and_404_is_not_found():
    assert type(error_from_reply(400, "<html>")) is Rejected
    assert type(error_from_reply(404, None)) is NotFound


def test_a_redirect_is_a_plain_provider_error():
    error = error_from_reply(302, None)
    assert type(error) is ProviderError
    assert not error.retryable


def test_body_fields_tolerate_odd_values():
    assert error_body_fields({"code": "1161", "message": "x"}) == (1161, "x")
    assert error_body_fields({"errorCode": None}) == (None, None)
    assert error_body_fields(["not", "a", "mapping"]) == (None, None)
    assert error_body_fields({"code": "abc", "message": 5}) == (None, "5")


def test_retry_after_header_is_carried(make_client, stub):
    stub.get(
        url("/v1/business/1/media/get"),
        json={"code": 89, "message": "Rate limit exceeded"},
        status=429,
        headers={"Retry-After": "7"},
    )
    client = make_client(max_retries=0)

    with pytest.raises(RateLimited) as excinfo:
        client.get_media(1)

    assert excinfo.value.retry_after == 7


def test_errors_survive_pickling():
    error = Transient(None, "timed out", None, operation="add_media", outcome_unknown=True)
    error.retry_after = 3.0

    clone = pickle.loads(pickle.dumps(error))

    assert type(clone) is Transient
    assert (clone.message, clone.operation, clone.outcome_unknown, clone.retry_after) == (
        "timed out",
        "add_media",
        True,
        3.0,
    )
    wait = pickle.loads(pickle.dumps(__import__("provider").RateLimitWaitTooLong(4.5)))
    assert wait.retry_after == 4.5

"""Bounded retries with backoff for 429, 5xx and connection errors; none for verdicts or for
writes that may have reached the provider."""

from __future__ import annotations

import pytest
import requests
from urllib3.exceptions import MaxRetryError, NewConnectionError, ProtocolError

from provider import (
    AuthError,
    NotFound,
    RateLimited,
    RateLimitWaitTooLong,
    Rejected,
    Transient,
)
from provider.retry import RetryPolicy

from .helpers import url

MEDIA = url("/v1/business/1/media/get")
ADD_MEDIA = url("/v1/business/1/upload/media")
RATE_LIMITED = {"json": {"code": 89, "message": "Rate limit exceeded"}, "status": 429}
SERVER_ERROR = {"json": {"code": 500, "message": "Internal error"}, "status": 500}


def refused() -> requests.ConnectionError:
    """What requests raises when the connection could not be opened (nothing was sent)."""
    return requests.ConnectionError(
        MaxRetryError(None, "/", NewConnectionError(None, "Connection refused"))
    )


def dropped() -> requests.ConnectionError:
    """What requests raises when the server closed the connection after the request was sent."""
    return requests.ConnectionError(ProtocolError("Connection aborted.", ConnectionResetError()))


class LargestJitter:
    """An rng whose jitter is always the full ceiling (the worst case)."""

    def uniform(self, low: float, high: float) -> float:
        return high


def test_429_is_retried_and_counted(client, stub, sleeps):
    stub.get(MEDIA, **RATE_LIMITED)
    stub.get(MEDIA, json={"media": []})

    assert client.get_media(1) == []

    assert len(stub.calls) == 2
    assert len(sleeps) == 1
    assert (client.stats.requests, client.stats.rate_limited, client.stats.retries) == (2, 1, 1)


def test_5xx_is_retried_with_exponential_full_jitter(make_client, stub, sleeps):
    client = make_client(max_retries=3, backoff_base=0.5, backoff_cap=30)
    for _ in range(3):
        stub.get(MEDIA, **SERVER_ERROR)
    stub.get(MEDIA, json={"media": [{"mediaId": "m"}]})

    assert client.get_media(1)[0].media_id == "m"

    assert len(stub.calls) == 4
    ceilings = [0.5, 1.0, 2.0]
    assert len(sleeps) == 3
    assert all(0 <= delay <= ceiling for delay, ceiling in zip(sleeps, ceilings, strict=True))


def test_backoff_doubles_up_to_the_cap(make_client, stub, sleeps):
    client = make_client(
        max_retries=5, backoff_base=1, backoff_cap=3, rng=LargestJitter(), max_wait_in_process=60
    )
    for _ in range(5):
        stub.get(MEDIA, **SERVER_ERROR)
    stub.get(MEDIA, json={"media": []})

    client.get_media(1)

    assert sleeps == [1, 2, 3, 3, 3]


def test_retries_are_bounded_and_suggest_a_delay(make_client, stub, sleeps):
    client = make_client(max_retries=2, backoff_base=0.5)
    stub.get(MEDIA, **SERVER_ERROR)

    with pytest.raises(Transient) as excinfo:
        client.get_media(1)

    assert len(stub.calls) == 3
    assert len(sleeps) == 2
    assert excinfo.value.retry_after == RetryPolicy(backoff_base=0.5).ceiling(2)
    assert excinfo.value.outcome_unknown is False


def test_exhausted_429_raises_rate_limited_with_a_countdown(make_client, stub):
    client = make_client(max_retries=1)
    stub.get(MEDIA, **RATE_LIMITED)

    with pytest.raises(RateLimited) as excinfo:
        client.get_media(1)

    assert excinfo.value.retry_after and excinfo.value.retry_after > 0
    assert client.stats.rate_limited == 2


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [(400, 2174, Rejected), (401, 1161, AuthError), (404, 1011, NotFound), (500, 1005, NotFound)],
)
def test_verdicts_are_never_retried(client, stub, sleeps, status, code, expected):
    stub.get(MEDIA, json={"code": code, "message": "no"}, status=status)

    with pytest.raises(expected):
        client.get_media(1)

    assert len(stub.calls) == 1
    assert sleeps == []


@pytest.mark.parametrize(
    "failure",
    [refused(), dropped(), requests.ConnectTimeout(), requests.ReadTimeout()],
    ids=["refused", "dropped", "connect-timeout", "read-timeout"],
)
def test_reads_are_retried_after_connection_errors_and_timeouts(client, stub, sleeps, failure):
    stub.get(MEDIA, body=failure)
    stub.get(MEDIA, json={"media": []})

    assert client.get_media(1) == []

    assert len(stub.calls) == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize(
    "failure",
    [requests.ReadTimeout(), dropped()],
    ids=["read-timeout", "dropped-after-send"],
)
def test_write_is_not_retried_when_it_may_have_been_processed(client, stub, sleeps, failure):
    stub.post(ADD_MEDIA, body=failure)
    stub.post(ADD_MEDIA, json={"media": []})

    with pytest.raises(Transient) as excinfo:
        client.add_media(1, [{"url": "https://x/p.jpg"}])

    assert excinfo.value.outcome_unknown is True
    assert "outcome unknown" in str(excinfo.value)
    assert len(stub.calls) == 1
    assert sleeps == []


def test_write_is_not_retried_after_a_5xx(client, stub):
    stub.post(url("/v1/listing/1/create"), **SERVER_ERROR)

    with pytest.raises(Transient) as excinfo:
        client.create_listing(1, {"businessInfo": {}})

    assert excinfo.value.outcome_unknown is True
    assert excinfo.value.http_status == 500
    assert len(stub.calls) == 1


def test_write_answered_with_unreadable_json_has_unknown_outcome(client, stub):
    stub.post(url("/v1/business/public/custom-fields/create"), body="<html>oops</html>")

    with pytest.raises(Transient) as excinfo:
        client.create_custom_field(1, {"fieldName": "x", "type": "TEXT"})

    assert excinfo.value.outcome_unknown is True
    assert len(stub.calls) == 1


@pytest.mark.parametrize(
    "failure",
    [refused(), requests.ConnectTimeout()],
    ids=["refused", "connect-timeout"],
)
def test_write_is_retried_when_it_certainly_was_not_sent(client, stub, failure):
    stub.post(url("/v1/subscriptions/subscribe"), body=failure)
    stub.post(url("/v1/subscriptions/subscribe"), json={"id": "s-1", "message": "ok"})

    result = client.subscribe(1, webhook_url="https://h", emails=[], event_name="LISTING_UPDATED")

    assert result.id == "s-1"
    assert len(stub.calls) == 2


def test_write_is_retried_after_429(client, stub):
    stub.post(url("/v1/listing/1/create"), **RATE_LIMITED)
    stub.post(url("/v1/listing/1/create"), body="")

    assert client.create_listing(1, {}) is None
    assert len(stub.calls) == 2


def test_long_server_hint_is_not_slept_but_handed_to_the_caller(make_client, stub, sleeps):
    client = make_client(max_wait_in_process=10)
    stub.get(MEDIA, **RATE_LIMITED, headers={"Retry-After": "120"})

    with pytest.raises(RateLimited) as excinfo:
        client.get_media(1)

    assert excinfo.value.retry_after == 120
    assert len(stub.calls) == 1
    assert sleeps == []


def test_long_backoff_is_not_slept_but_handed_to_the_caller(make_client, stub, sleeps):
    client = make_client(
        backoff_base=100, backoff_cap=100, max_wait_in_process=5, rng=LargestJitter()
    )
    stub.get(MEDIA, **SERVER_ERROR)

    with pytest.raises(Transient) as excinfo:
        client.get_media(1)

    assert excinfo.value.retry_after == 100
    assert sleeps == []


def test_oversized_reply_is_transient(make_client, stub):
    client = make_client(max_response_bytes=100, max_retries=1)
    stub.get(MEDIA, json={"media": [{"description": "x" * 500}]})

    with pytest.raises(Transient, match="over 100 bytes|reply of"):
        client.get_media(1)

    assert len(stub.calls) == 2


def test_empty_reply_where_json_expected_is_transient(make_client, stub):
    stub.get(MEDIA, body="")

    with pytest.raises(Transient, match="empty reply"):
        make_client(max_retries=0).get_media(1)


class RecordingLimiter:
    def __init__(self, refuse: bool = False) -> None:
        self.calls: list[tuple[str, int, int, float]] = []
        self.refuse = refuse

    def acquire(self, key: str, count: int, seconds: int, *, max_wait: float) -> None:
        self.calls.append((key, count, seconds, max_wait))
        if self.refuse:
            raise RateLimitWaitTooLong(42.0)


def test_limiter_is_waited_on_before_every_attempt(make_client, stub):
    limiter = RecordingLimiter()
    client = make_client(
        rate_limiter=limiter, rate_limit_key="fp-abc", rate_limit=(10, 60), max_wait_in_process=7
    )
    stub.get(MEDIA, **SERVER_ERROR)
    stub.get(MEDIA, json={"media": []})

    client.get_media(1)

    assert limiter.calls == [("fp-abc", 10, 60, 7), ("fp-abc", 10, 60, 7)]


def test_limiter_wait_too_long_sends_nothing(make_client, stub):
    client = make_client(
        rate_limiter=RecordingLimiter(refuse=True), rate_limit_key="fp", rate_limit=(1, 1)
    )
    stub.get(MEDIA, json={"media": []})

    with pytest.raises(RateLimited) as excinfo:
        client.get_media(1)

    assert excinfo.value.retry_after == 42.0
    assert len(stub.calls) == 0
    assert client.stats.requests == 0


def test_client_with_a_shared_file_limiter(make_client, stub, tmp_path):
    from provider import FileRateLimiter

    client = make_client(
        rate_limiter=FileRateLimiter(tmp_path),
        rate_limit_key="fp",
        rate_limit=(2, 60),
        max_wait_in_process=0.5,
    )
    other_process_client = make_client(
        rate_limiter=FileRateLimiter(tmp_path), rate_limit_key="fp", rate_limit=(2, 60)
    )
    stub.get(MEDIA, json={"media": []})

    client.get_media(1)
    other_process_client.get_media(1)
    with pytest.raises(RateLimitWaitTooLong) as excinfo:
        client.get_media(1)

    assert excinfo.value.retry_after > 50
    assert len(stub.calls) == 2

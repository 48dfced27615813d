"""A write's requests are observed: when each leaves, and whether its answer proves it did
nothing, so that the outbox can tell a request that never left from one that may have arrived."""

from __future__ import annotations

import pytest
import requests
import responses
from urllib3.exceptions import MaxRetryError, NewConnectionError, ReadTimeoutError

from provider import ProviderClient, RateLimited, Rejected, Transient, WriteNotRecorded
from tests.provider.helpers import API_KEY, BASE_URL, SleepRecorder, url

LISTING = "/v1/listing/1001/create"


class Recorder:
    def __init__(self, refuse: bool = False) -> None:
        self.events: list[tuple] = []
        self.refuse = refuse

    def leaving(self, operation: str) -> None:
        self.events.append(("leaving", operation))
        if self.refuse:
            raise RuntimeError("database down")

    def answered(self, operation: str, *, taken: bool | None) -> None:
        self.events.append(("answered", operation, taken))


def client(max_retries: int = 2) -> ProviderClient:
    return ProviderClient(BASE_URL, API_KEY, sleep=SleepRecorder(), max_retries=max_retries,
                          backoff_base=0.01)


@responses.activate
def test_an_accepted_write_is_heard_leaving_then_taken():
    responses.post(url(LISTING), status=200, body="")
    recorder = Recorder()
    with client() as provider, provider.observe_writes(recorder):
        provider.create_listing(1001, {"businessInfo": {"name": "A"}})
    assert recorder.events == [("leaving", "create_listing"),
                               ("answered", "create_listing", True)]


@responses.activate
def test_a_429_then_a_success_proves_the_first_did_nothing():
    responses.post(url(LISTING), status=429, json={"code": 89, "message": "Rate limit"})
    responses.post(url(LISTING), status=200, body="")
    recorder = Recorder()
    with client() as provider, provider.observe_writes(recorder):
        provider.create_listing(1001, {"businessInfo": {"name": "A"}})
    assert recorder.events == [("leaving", "create_listing"),
                               ("answered", "create_listing", False),
                               ("leaving", "create_listing"),
                               ("answered", "create_listing", True)]


@responses.activate
@pytest.mark.parametrize(("reply", "error", "taken"), [
    ({"status": 400, "json": {"code": 2503, "message": "Primary category included"}},
     Rejected, False),
    ({"status": 500, "json": {"code": 500, "message": "Internal error"}}, Transient, None),
    ({"body": requests.ConnectionError(MaxRetryError(None, "u", NewConnectionError(
        None, "refused")))}, Transient, False),
    ({"body": requests.ReadTimeout(ReadTimeoutError(None, "u", "read timed out"))},
     Transient, None),
])
def test_what_each_failed_answer_says_of_the_writes_effect(reply, error, taken):
    responses.post(url(LISTING), **reply)
    recorder = Recorder()
    with client(max_retries=0) as provider, provider.observe_writes(recorder), \
            pytest.raises(error):
        provider.create_listing(1001, {"businessInfo": {"name": "A"}})
    assert recorder.events == [("leaving", "create_listing"),
                               ("answered", "create_listing", taken)]


@responses.activate
def test_a_write_whose_leaving_cannot_be_recorded_is_not_sent():
    responses.post(url(LISTING), status=200, body="")
    recorder = Recorder(refuse=True)
    with client() as provider, provider.observe_writes(recorder), \
            pytest.raises(WriteNotRecorded):
        provider.create_listing(1001, {"businessInfo": {"name": "A"}})
    assert len(responses.calls) == 0
    assert recorder.events == [("leaving", "create_listing")]  # and no retry of it


@responses.activate
def test_reads_are_not_observed():
    responses.get(url("/v1/business/1001/media/get"), json={"media": []})
    recorder = Recorder()
    with client() as provider, provider.observe_writes(recorder):
        provider.get_media(1001)
    assert recorder.events == []


@responses.activate
def test_the_observer_is_heard_only_inside_its_block():
    responses.post(url(LISTING), status=200, body="")
    recorder = Recorder()
    with client() as provider:
        with provider.observe_writes(recorder):
            pass
        provider.create_listing(1001, {"businessInfo": {"name": "A"}})
    assert recorder.events == []


@responses.activate
def test_a_rate_limited_write_given_up_is_known_not_taken():
    responses.post(url(LISTING), status=429, json={"code": 89, "message": "Rate limit"})
    recorder = Recorder()
    with client(max_retries=1) as provider, provider.observe_writes(recorder), \
            pytest.raises(RateLimited):
        provider.create_listing(1001, {"businessInfo": {"name": "A"}})
    assert [event[-1] for event in recorder.events if event[0] == "answered"] == [False, False]

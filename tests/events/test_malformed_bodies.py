"""Malformed deliveries to the provider-event endpoint: each one is a 400 that names the problem,
never a 500, and nothing is stored.

The bodies are the ones that get past a naive `json.loads` and break later (in Python's integer
conversion, its recursion limit, the UTF-8 encoder or PostgreSQL's JSONB and text types), so
each test runs on SQLite and PostgreSQL alike.
"""

import pytest
from django.test import Client
from django.urls import reverse

from events.models import EventReceiver, ProviderEvent
from events.services import MAX_NESTING_DEPTH, RECEIVER_EVENTS, password_hash
from portal.tenancy import tenant_scope
from tests.events.test_endpoint import PASSWORD, basic
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db

NAME = '"eventName": "LISTING_UPDATED"'


def event_with_data(data_json: str) -> str:
    return f'{{{NAME}, "data": {{"value": {data_json}}}}}'


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


MALFORMED = {
    "invalid JSON": ("{not json", "not valid JSON"),
    "truncated JSON": ('{"eventName": "LISTING_UPDATED"', "not valid JSON"),
    "empty body": ("", "not valid JSON"),
    "escaped NUL in a value": (event_with_data('"a\\u0000b"'), "NUL"),
    "escaped NUL in a key": (f'{{{NAME}, "data": {{"a\\u0000": 1}}}}', "NUL"),
    "escaped NUL in eventName": ('{"eventName": "LISTING\\u0000UPDATED"}', "NUL"),
    "raw NUL byte in a string": (event_with_data('"a\x00b"').encode(), "NUL"),
    "raw NUL byte outside strings": (f"{{{NAME}}}\x00".encode(), "NUL"),
    "integer of 5000 digits": (event_with_data("1" + "0" * 5000), "integer"),
    "integer beyond 64 bits in data": (event_with_data(str(2**64)), "integer"),
    "negative integer beyond 64 bits": (event_with_data(str(-(2**63) - 1)), "integer"),
    "businessId beyond bigint": (f'{{{NAME}, "businessId": {2**63}}}', "integer"),
    "float overflowing to infinity": (event_with_data("1e999"), "finite"),
    "NaN literal": (event_with_data("NaN"), "NaN"),
    "Infinity literal": (event_with_data("-Infinity"), "-Infinity"),
    "100000 nested arrays": (event_with_data(nested(100_000)), "nested"),
    "100000 nested arrays as the body": (nested(100_000), "nested"),
    "100000 nested objects": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested"),
    # The body object and its data object are two levels already.
    "one level too deep": (event_with_data(nested(MAX_NESTING_DEPTH - 1)), "nested"),
    "lone high surrogate": (event_with_data('"\\ud800"'), "surrogate"),
    "lone low surrogate in a key": (f'{{{NAME}, "data": {{"\\udfff": 1}}}}', "surrogate"),
    "reversed surrogate pair": (event_with_data('"\\ude00\\ud83d"'), "surrogate"),
    "non-UTF-8 bytes": (event_with_data('"caf\xe9"').encode("latin-1"), "UTF-8"),
    "UTF-16 body": (f"{{{NAME}}}".encode("utf-16"), "UTF-8"),
    "encoded surrogate bytes": (event_with_data('"\xed\xa0\x80"').encode("latin-1"), "UTF-8"),
    "array": ("[1, 2]", "JSON object"),
    "string": ('"LISTING_UPDATED"', "JSON object"),
    "number": ("42", "JSON object"),
    "null": ("null", "JSON object"),
    "impossible date": (f'{{{NAME}, "timestamp": "2026-02-30T10:00:00Z"}}', "timestamp"),
    "impossible offset": (f'{{{NAME}, "timestamp": "2026-02-03T10:00:00+99:00"}}', "timestamp"),
    "before year 1 in UTC": (f'{{{NAME}, "timestamp": "0001-01-01T00:00:00+01:00"}}', "timestamp"),
    "after year 9999 in UTC": (f'{{{NAME}, "timestamp": "9999-12-31T23:30:00-01:00"}}',
                               "timestamp"),
}


@pytest.fixture
def receiver(settings):
    # Large enough for the deep and long bodies: the size limit has its own test.
    settings.PROVIDER_EVENT_MAX_BODY_BYTES = 1024 * 1024
    reseller = ResellerFactory()
    with tenant_scope(reseller):
        return EventReceiver.objects.create(reseller=reseller, username="portal-malformed",
                                            password_hash=password_hash(PASSWORD),
                                            events=list(RECEIVER_EVENTS))


def deliver(receiver, body: str | bytes):
    # A server error must come back as a response here, like the provider would see it.
    client = Client(raise_request_exception=False)
    url = reverse("provider_event_receive", args=[receiver.public_id])
    return client.post(url, data=body, content_type="application/json",
                       HTTP_AUTHORIZATION=basic(receiver.username, PASSWORD))


@pytest.mark.parametrize(("body", "problem"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_body_gets_400_naming_the_problem_and_nothing_is_stored(
        receiver, body, problem):
    response = deliver(receiver, body)
    assert response.status_code == 400, response.content[:300]
    answer = response.json()
    assert answer["code"] == "invalid"
    assert problem in answer["message"]
    assert not ProviderEvent.unscoped.exists()


@pytest.mark.parametrize("body", [
    event_with_data(nested(MAX_NESTING_DEPTH - 2)),
    event_with_data(str(2**63 - 1)),
    event_with_data(str(-(2**63))),
    event_with_data("1.5e300"),
    event_with_data('"\\ud83d\\ude00 and [[[ {{{ \\" brackets in a string"'),
    event_with_data('"caf\u00e9 \U0001f600"'),
    f'{{{NAME}, "businessId": {2**63 - 1}}}',
], ids=["deepest allowed", "largest bigint", "smallest bigint", "large float",
        "brackets and a surrogate pair in a string", "non-ASCII", "largest businessId"])
def test_bodies_at_the_limits_are_accepted_and_stored(receiver, body):
    response = deliver(receiver, body.encode())
    assert response.status_code == 202, response.content[:300]
    event = ProviderEvent.unscoped.get()
    # JSONB writes 1.5e300 back as an integer of 301 digits: compare what arrived.
    assert event.body == body and event.payload["eventName"] == "LISTING_UPDATED"

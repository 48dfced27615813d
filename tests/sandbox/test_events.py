"""Webhook events of the sandbox: published when a listing's status moves or a survey response
is added, delivered over HTTP with the subscription's Basic credentials, retried, never sent
twice."""

from __future__ import annotations

import base64
import datetime
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from sandbox import events
from sandbox import status as lifecycle
from sandbox.activity import survey_response_add
from sandbox.catalog import SiteState
from sandbox.models import Business, EventDelivery, Listing, SiteStatus, Subscription, Survey
from tests.sandbox.conftest import LIVE_DB, valid_listing

pytestmark = LIVE_DB


class Hook:
    """A webhook endpoint on loopback that records what it receives."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.answer = 200
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                hook.received.append({"path": self.path, "body": json.loads(body),
                                      "authorization": self.headers.get("Authorization"),
                                      "content_type": self.headers.get("Content-Type")})
                self.send_response(hook.answer)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook():
    endpoint = Hook()
    yield endpoint
    endpoint.close()


def subscribe(partner, account, url, event_name, auth=None):
    return Subscription.objects.create(partner=partner, account=account,
                                       subscription_id=f"sub-{event_name}-{url[-6:]}",
                                       webhook_url=url, event_name=event_name, auth=auth,
                                       created_at=timezone.now())


def start_listing(partner, location):
    Listing.objects.filter(location=location).delete()
    listing = Listing.objects.create(partner=partner, location=location,
                                     payload=valid_listing(), fixed=True, version=1)
    SiteStatus.objects.filter(location=location).update(connected=True)
    return listing


def test_status_moves_publish_one_event_per_location_and_step(partner, location, hook):
    root = Business.objects.get(number=partner.account_number)
    subscribe(partner, root, f"{hook.url}/listing", "LISTING_UPDATED",
              auth={"username": "portal", "password": "s3cret"})
    subscribe(partner, root, f"{hook.url}/survey", "SURVEY_COMPLETED")
    EventDelivery.objects.all().delete()
    listing = start_listing(partner, location)
    start = timezone.now()

    lifecycle.start_site_statuses(listing, step_seconds=60, now=start)
    lifecycle.advance_location_sites(location, start + datetime.timedelta(seconds=59))  # nothing
    lifecycle.advance_location_sites(location, start + datetime.timedelta(seconds=60))
    lifecycle.advance_location_sites(location, start + datetime.timedelta(seconds=120))

    ours = EventDelivery.objects.filter(webhook_url__startswith=hook.url).order_by("pk")
    statuses = [{site["status"] for site in d.payload["data"]["sites"]} for d in ours]
    assert statuses == [{SiteState.SUBMITTED}, {SiteState.IN_PROGRESS},
                        {SiteState.SYNCED, SiteState.ACTION_REQUIRED}]
    first = ours[0].payload
    assert set(first) == {"eventName", "businessId", "timestamp", "data"}
    assert (first["eventName"], first["businessId"]) == ("LISTING_UPDATED", location.number)
    assert first["timestamp"].endswith("Z")
    assert len(first["data"]["sites"]) == SiteStatus.objects.filter(location=location).count()

    assert events.deliver_due() >= 3
    listing_hits = [r for r in hook.received if r["path"] == "/listing"]
    assert [r["body"] for r in listing_hits] == [d.payload for d in ours]
    expected = "Basic " + base64.b64encode(b"portal:s3cret").decode()
    assert {r["authorization"] for r in listing_hits} == {expected}
    assert {r["content_type"] for r in listing_hits} == {"application/json"}
    assert not [r for r in hook.received if r["path"] == "/survey"]
    assert set(ours.values_list("state", flat=True)) == {EventDelivery.State.DELIVERED}
    # Delivered once: another run sends nothing more.
    events.deliver_due()
    assert len([r for r in hook.received if r["path"] == "/listing"]) == 3


def test_a_survey_response_publishes_survey_completed(partner, hook):
    survey = Survey.objects.filter(partner=partner).order_by("survey_id").first()
    subscribe(partner, survey.owner, hook.url, "SURVEY_COMPLETED")
    response = survey_response_add(survey=survey)

    delivery = EventDelivery.objects.get(webhook_url=hook.url)
    assert delivery.payload["businessId"] == response.location.number
    assert delivery.payload["data"] == {
        "surveyId": survey.survey_id, "responseId": response.response_id,
        "customerName": response.customer_name, "overallScore": response.overall_score}
    assert events.deliver([delivery.pk]) == 1
    assert hook.received[0]["body"]["eventName"] == "SURVEY_COMPLETED"
    assert hook.received[0]["authorization"] is None  # subscribed without credentials


def test_only_subscriptions_above_the_business_get_its_events(partner, seeded_b, hook):
    other_partner_root = Business.objects.get(number=seeded_b["account_number"])
    subscribe(other_partner_root.partner, other_partner_root, hook.url, "SURVEY_COMPLETED")
    survey = Survey.objects.filter(partner=partner).first()
    survey_response_add(survey=survey)
    assert not EventDelivery.objects.filter(webhook_url=hook.url).exists()


def test_failed_deliveries_are_retried_later_then_given_up(partner, hook, monkeypatch):
    root = Business.objects.get(number=partner.account_number)
    subscribe(partner, root, hook.url, "SURVEY_COMPLETED")
    hook.answer = 500
    survey_response_add(survey=Survey.objects.filter(partner=partner, owner=root).first())
    delivery = EventDelivery.objects.get(webhook_url=hook.url)

    assert events.deliver([delivery.pk]) == 0
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts, delivery.last_status) == ("pending", 1, 500)
    assert delivery.next_attempt_at > timezone.now()  # backed off: not due yet
    assert events.deliver_due() == 0 and len(hook.received) == 1

    for attempt in range(2, events.MAX_ATTEMPTS + 1):
        EventDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        events.deliver_due()
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("failed", events.MAX_ATTEMPTS)
    assert len(hook.received) == events.MAX_ATTEMPTS

    # A receiver that recovers gets what is still pending, once.
    hook.answer = 204
    survey_response_add(survey=Survey.objects.filter(partner=partner, owner=root).first())
    assert events.deliver_due() == 1


def test_private_hosts_are_refused_unless_allowed(partner, hook, settings):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    root = Business.objects.get(number=partner.account_number)
    subscribe(partner, root, hook.url, "SURVEY_COMPLETED")
    survey_response_add(survey=Survey.objects.filter(partner=partner, owner=root).first())
    events.deliver_due()
    delivery = EventDelivery.objects.get(webhook_url=hook.url)
    assert delivery.state == "failed" and "private or loopback" in delivery.last_error
    assert hook.received == []

"""Live updates end to end over real HTTP: the portal subscribes itself at the sandbox, the
sandbox delivers events to the portal's endpoint, the portal stores them and refreshes what
changed."""

import base64
import datetime

import pytest
import requests
from django.utils import timezone

from accounts.models import AuditEvent, Business
from events.models import EventReceiver, ProviderEvent
from events.services import (
    event_receiver_disable,
    event_receiver_enable,
    event_receiver_url,
    provider_event_process,
)
from listings.models import ListingStatusReport, Subscription
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from reviews_app.models import Survey, SurveyResponse
from sandbox import events as sandbox_events
from sandbox import models as sandbox
from sandbox.activity import survey_response_add
from sandbox.catalog import SiteState
from sandbox.status import advance_due_sites
from tests.events.conftest import send_open_outbox
from tests.factories import BusinessFactory

pytestmark = pytest.mark.django_db(transaction=True)


def process_all(reseller):
    with tenant_scope(reseller):
        return [provider_event_process(tenant=reseller, event_id=pk)
                for pk in ProviderEvent.objects.order_by("pk").values_list("pk", flat=True)]


def portal_deliveries():
    return sandbox.EventDelivery.objects.filter(webhook_url__contains="/hooks/provider/")


def test_enabling_subscribes_the_portal_for_both_events_with_basic_credentials(reseller,
                                                                                receiver):
    url = event_receiver_url(receiver)
    remote = sandbox.Subscription.objects.filter(webhook_url=url)
    assert sorted(remote.values_list("event_name", flat=True)) == ["LISTING_UPDATED",
                                                                   "SURVEY_COMPLETED"]
    auth = remote.first().auth
    assert auth["username"] == receiver.username and len(auth["password"]) >= 40
    # The portal keeps only a hash; the outbox no longer holds the password either.
    assert auth["password"] not in str(EventReceiver.unscoped.values().get())
    assert auth["password"] not in str(list(OutboxEntry.unscoped.values("payload")))
    assert Subscription.unscoped.filter(reseller=reseller, webhook_url=url).count() == 2


def test_a_status_move_at_the_provider_refreshes_the_location(reseller, receiver, seeded):
    number = seeded["location_numbers"][0]
    with tenant_scope(reseller):
        business = BusinessFactory(reseller=reseller, remote_id=number)
    sandbox.SiteStatus.objects.update(next_change_at=None)  # the seed leaves some on their way
    site = sandbox.SiteStatus.objects.filter(location__number=number).first()
    sandbox.SiteStatus.objects.filter(pk=site.pk).update(
        status=SiteState.SUBMITTED, step_seconds=60, outcome=SiteState.SYNCED,
        next_change_at=timezone.now() - datetime.timedelta(seconds=1))

    assert advance_due_sites() == 1
    assert sandbox_events.deliver_due() == 1  # to the portal; the seeded example.com hook fails
    delivery = portal_deliveries().get()
    assert delivery.state == "delivered" and delivery.last_status == 202

    event = ProviderEvent.unscoped.get(reseller=reseller)
    assert (event.event_name, event.business_remote_id, event.business_id) == (
        "LISTING_UPDATED", number, business.pk)
    assert event.payload == delivery.payload and event.state == "received"
    [processed] = process_all(reseller)
    assert processed.state == "processed", processed.result
    report = ListingStatusReport.unscoped.get(reseller=reseller, business=business)
    remote_sites = sandbox.SiteStatus.objects.filter(location__number=number)
    assert report.total_sites == 22
    assert report.synced_count == sum(1 for s in remote_sites if s.status == SiteState.SYNCED)
    assert AuditEvent.unscoped.filter(reseller=reseller,
                                      action="listing_status.refreshed").count() == 1
    # Processed once: running it again does nothing.
    assert process_all(reseller) == [None]


def test_a_completed_survey_is_mirrored(reseller, receiver, seeded):
    root = sandbox.Business.objects.get(number=seeded["account_number"])
    survey = sandbox.Survey.objects.filter(owner=root).first()
    response = survey_response_add(survey=survey)
    sandbox_events.deliver_due()
    [processed] = process_all(reseller)
    assert processed.state == "processed", processed.result
    mirrored = SurveyResponse.unscoped.get(reseller=reseller, remote_id=response.response_id)
    assert (mirrored.customer_name, mirrored.overall_score) == (response.customer_name,
                                                               response.overall_score)
    # A survey the portal did not follow yet is followed from now on.
    assert Survey.unscoped.filter(reseller=reseller, remote_id=survey.survey_id).exists()


def test_an_event_for_a_location_not_mirrored_yet_is_ignored_with_a_reason(reseller, receiver,
                                                                            seeded):
    post(receiver, {"eventName": "LISTING_UPDATED", "businessId": 123456789,
                    "timestamp": "2026-11-21T10:00:00Z", "data": {}})
    [event] = process_all(reseller)
    assert event.state == "ignored" and "not mirrored yet" in event.result


def test_an_outage_is_retried_then_processed(reseller, receiver, seeded):
    number = seeded["location_numbers"][0]
    with tenant_scope(reseller):
        BusinessFactory(reseller=reseller, remote_id=number)
    post(receiver, {"eventName": "LISTING_UPDATED", "businessId": number,
                    "timestamp": "2026-11-21T10:00:00Z", "data": {}})
    sandbox.PartnerAccount.objects.filter(key_prefix__isnull=False).update(error_rate=1.0)
    [event] = process_all(reseller)
    assert (event.state, event.attempts) == ("received", 1)
    assert event.next_attempt_at > timezone.now()
    sandbox.PartnerAccount.objects.update(error_rate=0.0)
    ProviderEvent.unscoped.update(next_attempt_at=timezone.now())
    [event] = process_all(reseller)
    assert (event.state, event.attempts) == ("processed", 2)


def test_turning_off_refuses_deliveries_and_unsubscribes(reseller, receiver):
    old_auth = sandbox.Subscription.objects.filter(
        webhook_url=event_receiver_url(receiver)).first().auth
    with tenant_scope(reseller):
        event_receiver_disable(tenant=reseller, actor=None, receiver=receiver)
    send_open_outbox(reseller)
    assert not sandbox.Subscription.objects.filter(
        webhook_url=event_receiver_url(receiver)).exists()
    assert post(receiver, {"eventName": "LISTING_UPDATED"}, auth=old_auth).status_code == 401


def test_renewing_replaces_the_subscriptions_and_the_old_password(reseller, receiver):
    old_auth = sandbox.Subscription.objects.filter(
        webhook_url=event_receiver_url(receiver)).first().auth
    with tenant_scope(reseller):
        event_receiver_enable(tenant=reseller, actor=None)
    send_open_outbox(reseller)
    remote = sandbox.Subscription.objects.filter(webhook_url=event_receiver_url(receiver))
    assert remote.count() == 2
    new_auth = remote.first().auth
    assert new_auth["password"] != old_auth["password"]
    body = {"eventName": "LISTING_UPDATED", "businessId": 1}
    assert post(receiver, body, auth=old_auth).status_code == 401
    assert post(receiver, body, auth=new_auth).status_code == 202


def post(receiver, body, auth=None):
    if auth is None:
        auth = sandbox.Subscription.objects.filter(
            webhook_url=event_receiver_url(receiver)).first().auth
    token = base64.b64encode(f"{auth['username']}:{auth['password']}".encode()).decode()
    return requests.post(event_receiver_url(receiver), json=body, timeout=10,
                         headers={"Authorization": f"Basic {token}"})


def test_the_sandbox_tick_moves_statuses_and_delivers(reseller, receiver, seeded):
    from sandbox.tasks import sandbox_tick_task

    number = seeded["location_numbers"][1]
    sandbox.SiteStatus.objects.update(next_change_at=None)
    sandbox.SiteStatus.objects.filter(location__number=number).update(
        status=SiteState.IN_PROGRESS, step_seconds=60, outcome=SiteState.SYNCED,
        next_change_at=timezone.now() - datetime.timedelta(seconds=1))
    result = sandbox_tick_task()
    assert result["sites_moved"] == sandbox.SiteStatus.objects.filter(
        location__number=number).count()
    assert result["delivered"] == 1
    assert ProviderEvent.unscoped.filter(reseller=reseller, business_remote_id=number).exists()
    assert not Business.unscoped.filter(reseller=reseller).exists()  # nothing else touched

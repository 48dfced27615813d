"""Resilience: a flood of the same webhook delivery, at once, over real HTTP, is stored once
and processed once."""

import base64
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection

from accounts.models import AuditEvent
from events.models import ProviderEvent
from events.services import event_receiver_url, provider_event_process
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from tests.factories import BusinessFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(
        connection.vendor == "sqlite",
        reason="the in-memory SQLite test database gives the live server's threads one shared "
               "connection, which cannot take concurrent requests; CI runs this on PostgreSQL"),
]

COPIES = 60
SENDERS = 12


def test_a_flood_of_one_delivery_is_stored_once_and_processed_once(reseller, receiver, seeded):
    number = seeded["location_numbers"][0]
    with tenant_scope(reseller):
        BusinessFactory(reseller=reseller, remote_id=number)
    auth = sandbox.Subscription.objects.filter(webhook_url=event_receiver_url(receiver)
                                               ).first().auth
    token = base64.b64encode(f"{auth['username']}:{auth['password']}".encode()).decode()
    body = {"eventName": "LISTING_UPDATED", "businessId": number,
            "timestamp": "2026-11-21T10:00:00Z", "data": {"sites": []}}
    start = threading.Barrier(SENDERS)

    def deliver(_):
        session = requests.Session()
        try:
            start.wait(timeout=10)
        except threading.BrokenBarrierError:
            pass
        try:
            return [session.post(event_receiver_url(receiver), json=body, timeout=30,
                                 headers={"Authorization": f"Basic {token}"}).status_code
                    for _ in range(COPIES // SENDERS)]
        finally:
            session.close()

    with ThreadPoolExecutor(SENDERS) as pool:
        statuses = [status for batch in pool.map(deliver, range(SENDERS)) for status in batch]

    assert len(statuses) == COPIES
    assert sorted(set(statuses)) == [200, 202] and statuses.count(202) == 1
    event = ProviderEvent.unscoped.get(reseller=reseller)
    assert event.deliveries == COPIES

    # Several workers picking the event up at once: one processes it.
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: _process(reseller, event.pk), range(4)))
    assert sum(1 for result in results if result is not None) == 1
    event.refresh_from_db()
    assert event.state == "processed", event.result
    assert AuditEvent.unscoped.filter(reseller=reseller,
                                      action="listing_status.refreshed").count() == 1


def _process(reseller, event_id):
    try:
        with tenant_scope(reseller):
            return provider_event_process(tenant=reseller, event_id=event_id)
    finally:
        connection.close()

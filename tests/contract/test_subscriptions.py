"""Subscribe (published by the provider, outside the 16) and unsubscribe (16)."""

from __future__ import annotations

import pytest

from provider import NotFound, Rejected
from provider.types import Subscription, UnsubscribeResult, WebhookAuth
from sandbox.models import Subscription as StoredSubscription

from .conftest import LIVE_DB

pytestmark = LIVE_DB


def test_subscribe_unsubscribe_then_unsubscribe_again(client, ids):
    subscription = client.subscribe(
        ids.account,
        webhook_url="https://hooks.example.com/portal/listing",
        emails=["ops@example.com", "alerts@example.com"],
        event_name="LISTING_UPDATED",
        auth=WebhookAuth("portal", "hook-secret"),
    )

    assert isinstance(subscription, Subscription)
    assert subscription.id and subscription.message
    row = StoredSubscription.objects.get(subscription_id=subscription.id)
    assert row.account.number == ids.account
    assert row.webhook_url == "https://hooks.example.com/portal/listing"
    assert row.emails == ["ops@example.com", "alerts@example.com"]
    assert row.event_name == "LISTING_UPDATED"
    assert row.auth == {"username": "portal", "password": "hook-secret"}

    result = client.unsubscribe(subscription.id, account_number=ids.account)
    assert isinstance(result, UnsubscribeResult)
    assert result.message == "This Subscription has been Unsubscribed"
    assert not StoredSubscription.objects.filter(subscription_id=subscription.id).exists()

    with pytest.raises(NotFound) as caught:
        client.unsubscribe(subscription.id, account_number=ids.account)
    assert (caught.value.code, caught.value.http_status) == (1005, 500)
    assert caught.value.message == "Subscription Not found for Particular Id"
    assert client.stats.retries == 0


def test_subscribe_without_auth_and_unsubscribe_a_seeded_subscription(client, ids):
    subscription = client.subscribe(
        ids.enterprise,
        webhook_url="https://hooks.example.com/survey",
        emails=[],
        event_name="SURVEY_COMPLETED",
    )
    row = StoredSubscription.objects.get(subscription_id=subscription.id)
    assert (row.account.number, row.auth, row.emails) == (ids.enterprise, None, [])

    assert client.unsubscribe(ids.subscription, account_number=ids.account).message
    assert not StoredSubscription.objects.filter(subscription_id=ids.subscription).exists()


def test_subscription_errors(client, ids):
    # A subscription belongs to the business it was created with.
    with pytest.raises(NotFound) as elsewhere:
        client.unsubscribe(ids.subscription, account_number=ids.enterprise)
    assert elsewhere.value.code == 1005
    assert StoredSubscription.objects.filter(subscription_id=ids.subscription).exists()

    with pytest.raises(Rejected) as unknown_event:
        client.subscribe(
            ids.account,
            webhook_url="https://hooks.example.com/x",
            emails=[],
            event_name="REVIEW_POSTED",
        )
    assert (unknown_event.value.code, unknown_event.value.http_status) == (400, 400)
    assert "eventName" in unknown_event.value.message

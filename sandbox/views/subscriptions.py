"""Webhook subscriptions: subscribe (published by the provider, outside the 16) and
unsubscribe (16)."""

from __future__ import annotations

import re
import uuid
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from sandbox.catalog import SUBSCRIPTION_EVENTS
from sandbox.endpoint import provider_endpoint
from sandbox.errors import ApiError, bad_input
from sandbox.inputs import body_list, body_string, json_object, query_number, string_items
from sandbox.models import PartnerAccount, Subscription
from sandbox.tree import find_business

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _auth(value: object) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_input("auth must be an object {username, password} or null")
    for name in ("username", "password"):
        if not isinstance(value.get(name), str):
            raise bad_input(f"auth.{name} must be a string")
    return {"username": value["username"], "password": value["password"]}


@provider_endpoint("POST")
def subscribe(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    number = query_number(request, "businessId")
    body = json_object(request)
    url = body_string(body, "webhookUrl", required=True).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise bad_input("webhookUrl must be an http or https URL")
    emails = string_items(body_list(body, "emails"), "emails")
    for index, email in enumerate(emails):
        if not _EMAIL.match(email):
            raise bad_input(f"emails[{index}] is not an email address")
    event = body_string(body, "eventName", required=True).strip()
    if event not in SUBSCRIPTION_EVENTS:
        raise bad_input(f"eventName must be one of {', '.join(SUBSCRIPTION_EVENTS)}")
    auth = _auth(body.get("auth"))
    account = find_business(partner, number)
    subscription = Subscription.objects.create(
        partner=partner,
        account=account,
        subscription_id=uuid.uuid4().hex,
        webhook_url=url,
        emails=emails,
        event_name=event,
        auth=auth,
        created_at=timezone.now(),
    )
    return JsonResponse({"id": subscription.subscription_id, "message": "Subscribed successfully"})


@provider_endpoint("GET")
def unsubscribe(
    request: HttpRequest, partner: PartnerAccount, subscription_id: str
) -> HttpResponse:
    account = find_business(partner, query_number(request, "businessId"))
    deleted, _ = Subscription.objects.filter(
        account=account, subscription_id=subscription_id
    ).delete()
    if not deleted:
        # The provider answers an unknown id with HTTP 500 (parameters.md).
        raise ApiError(500, 1005, "Subscription Not found for Particular Id")
    return JsonResponse({"message": "This Subscription has been Unsubscribed"})

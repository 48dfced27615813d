"""The endpoint the provider delivers events to: authenticate, store, answer.

It answers fast and does nothing slow: processing happens in a task. The provider (or anyone)
gets 401 for an unknown endpoint or wrong credentials alike, 413 for an oversized body, 400 for
a body that is not an event, 202 for a new event and 200 for one already received.
"""

from __future__ import annotations

import base64
import binascii

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from events.selectors import event_receiver_authenticate
from events.services import InvalidEvent, provider_event_record
from portal.tenancy import tenant_scope

REALM = 'Basic realm="provider-events", charset="UTF-8"'


def _basic_credentials(request: HttpRequest) -> tuple[str, str]:
    scheme, _, encoded = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "basic" or not encoded:
        return "", ""
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return "", ""
    username, _, password = decoded.partition(":")
    return username, password


def _error(status: int, code: str, message: str) -> JsonResponse:
    response = JsonResponse({"code": code, "message": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = REALM
    return response


@csrf_exempt  # called by the provider with Basic credentials, never by a browser session
@require_POST
def provider_event_receive(request: HttpRequest, public_id: str) -> HttpResponse:
    username, password = _basic_credentials(request)
    receiver = event_receiver_authenticate(public_id=public_id, username=username,
                                           password=password)
    if receiver is None:
        return _error(401, "not_authenticated", "Unknown endpoint or wrong credentials.")
    limit = settings.PROVIDER_EVENT_MAX_BODY_BYTES
    try:
        declared = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return _error(413, "too_large", f"The body may be at most {limit} bytes.")
    body = request.read(limit + 1)
    if len(body) > limit:
        return _error(413, "too_large", f"The body may be at most {limit} bytes.")
    with tenant_scope(receiver.reseller):
        try:
            event, created = provider_event_record(receiver=receiver, body=body)
        except InvalidEvent as exc:
            return _error(400, "invalid", str(exc))
    return JsonResponse({"id": event.pk, "duplicate": not created}, status=202 if created else 200)

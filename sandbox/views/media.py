"""Business media: add media (4) and get media (5)."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from sandbox.catalog import MAX_MEDIA_PER_REQUEST, MEDIA_CATEGORIES, MEDIA_FORMATS
from sandbox.endpoint import provider_endpoint
from sandbox.errors import ApiError, bad_input
from sandbox.inputs import json_object, parse_number
from sandbox.models import MediaItem, PartnerAccount
from sandbox.tree import find_location


def media_entry(item: MediaItem) -> dict[str, str]:
    return {
        "mediaId": item.media_id,
        "url": item.url,
        "mediaCategory": item.category,
        "description": item.description,
        "mediaFormat": item.format,
    }


def _is_media_url(text: str) -> bool:
    parts = urlsplit(text.strip())
    return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in text.strip()


# The provider's media replies (HTTP 400), word for word. Its 2180 (image size) needs the
# image itself, which the sandbox never fetches: it is never answered here.
UNSUPPORTED_CATEGORY = (2175, "Provided media category is not supported")
UNSUPPORTED_FORMAT = (2174, "Unsupported media format")
INVALID_URL = (2171, "URL is invalid")
VIDEO_NOT_MP4 = (2181, "Supported video format is MP4.")


def _check_item(item: Any, index: int) -> dict[str, str]:
    """One media entry, checked in the order 2175, 2174, 2171, 2181 (parameters.md)."""
    where = f"media[{index}]"
    if not isinstance(item, dict):
        raise bad_input(f"{where} must be an object")
    for name in ("url", "mediaCategory", "mediaFormat", "description"):
        if name in item and item[name] is not None and not isinstance(item[name], str):
            raise bad_input(f"{where}.{name} must be a string")
    unknown = set(item) - {"url", "mediaCategory", "mediaFormat", "description", "mediaId"}
    if unknown:
        raise bad_input(f"{where} has unknown fields: {', '.join(sorted(unknown))}")
    url = (item.get("url") or "").strip()
    category = item.get("mediaCategory")
    media_format = item.get("mediaFormat")
    if category not in MEDIA_CATEGORIES:
        raise ApiError(400, *UNSUPPORTED_CATEGORY)
    if media_format not in MEDIA_FORMATS:
        raise ApiError(400, *UNSUPPORTED_FORMAT)
    if not _is_media_url(url):
        raise ApiError(400, *INVALID_URL)
    if media_format == "VIDEO" and not urlsplit(url).path.lower().endswith(".mp4"):
        raise ApiError(400, *VIDEO_NOT_MP4)
    return {
        "url": url,
        "category": category,
        "format": media_format,
        "description": item.get("description") or "",
    }


@provider_endpoint("POST")
def add_media(request: HttpRequest, partner: PartnerAccount, business_number: str) -> HttpResponse:
    number = parse_number(business_number, "businessNumber")
    body = json_object(request)
    items = body.get("media")
    if items is None:
        raise bad_input("media is required")
    if not isinstance(items, list):
        raise bad_input("media must be an array")
    if not items:
        raise bad_input("media must hold at least one item")
    if len(items) > MAX_MEDIA_PER_REQUEST:
        raise bad_input(f"media holds at most {MAX_MEDIA_PER_REQUEST} items per request")
    checked = [_check_item(item, index) for index, item in enumerate(items)]
    location = find_location(partner, number, unknown_status=401)
    now = timezone.now()
    created = [
        MediaItem(
            partner=partner,
            location=location,
            media_id=secrets.token_hex(12),
            created_at=now,
            **fields,
        )
        for fields in checked
    ]
    with transaction.atomic():
        MediaItem.objects.bulk_create(created)
    return JsonResponse({"media": [media_entry(item) for item in created]})


@provider_endpoint("GET")
def get_media(request: HttpRequest, partner: PartnerAccount, business_number: str) -> HttpResponse:
    location = find_location(
        partner, parse_number(business_number, "businessNumber"), unknown_status=401
    )
    items = MediaItem.objects.filter(location=location).order_by("created_at", "pk")
    return JsonResponse({"media": [media_entry(item) for item in items]})

"""Writes of the media app."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Business, Reseller, User
from outbox.models import OutboxEntry
from outbox.services import outbox_enqueue


@transaction.atomic
def media_add(*, tenant: Reseller, actor: User | None, business: Business, url: str,
              category: str, description: str, media_format: str) -> OutboxEntry:
    """Queue an upload for the provider; it appears in the gallery once accepted."""
    payload = {"url": url, "mediaCategory": category, "description": description,
               "mediaFormat": media_format}
    return outbox_enqueue(tenant=tenant, actor=actor, kind=OutboxEntry.Kind.MEDIA_ADD,
                          payload=payload, business=business,
                          summary=f"{media_format.title()} {url}")

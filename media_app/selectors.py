"""Reads of the media app."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import Business, Reseller
from media_app.models import MediaItem
from outbox.models import OutboxEntry

UPLOADS_SHOWN = 20


def media_list(*, tenant: Reseller, business: Business, category: str = "",
               media_format: str = "") -> QuerySet[MediaItem]:
    """The business's media (not removed), newest first, optionally of one category/format."""
    queryset = MediaItem.objects.filter(reseller=tenant, business=business,
                                        removed_at__isnull=True)
    if category:
        queryset = queryset.filter(category=category)
    if media_format:
        queryset = queryset.filter(format=media_format)
    return queryset.order_by("-id")


def media_upload_list(*, tenant: Reseller, business: Business) -> QuerySet[OutboxEntry]:
    """Uploads of the business not (yet) in the gallery: on their way, refused or failed."""
    return (
        OutboxEntry.objects.filter(reseller=tenant, business=business,
                                   kind=OutboxEntry.Kind.MEDIA_ADD)
        .exclude(state=OutboxEntry.State.ACCEPTED)
        .order_by("-created_at", "-id")[:UPLOADS_SHOWN]
    )

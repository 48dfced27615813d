from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from accounts.models import Business, Reseller
from media_app.models import MediaItem
from portal.mirror import mark_removed, upsert
from provider import types as provider_types

MEDIA_FIELDS = ["business", "url", "category", "description", "format"]

MediaList = tuple[Business, list[provider_types.MediaItem]]


def media_upsert(*, tenant: Reseller, business: Business,
                 items: Sequence[provider_types.MediaItem], seen_at: datetime) -> None:
    """Mirror some items of one business (e.g. those an upload returned)."""
    _upsert(tenant=tenant, lists=[(business, list(items))], seen_at=seen_at)


def media_mirror(*, tenant: Reseller, lists: Sequence[MediaList], seen_at: datetime) -> None:
    """Mirror the complete media list of each business in `lists`."""
    _upsert(tenant=tenant, lists=lists, seen_at=seen_at)
    mark_removed(MediaItem.objects.filter(business_id__in=[b.pk for b, _ in lists]),
                 seen_at=seen_at)


def _upsert(*, tenant: Reseller, lists: Sequence[MediaList], seen_at: datetime) -> None:
    rows = [
        MediaItem(reseller=tenant, business=business, remote_id=item.media_id,
                  url=item.url or "", category=item.media_category or "",
                  description=item.description or "", format=item.media_format or "",
                  raw=dict(item.raw), last_seen_at=seen_at, removed_at=None)
        for business, items in lists for item in items if item.media_id
    ]
    upsert(MediaItem, rows, unique_fields=["reseller", "remote_id"], update_fields=MEDIA_FIELDS)

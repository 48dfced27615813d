"""Sending media uploads from the outbox."""

from __future__ import annotations

from django.utils import timezone

from media_app.mirroring import media_upsert
from outbox.models import OutboxEntry
from outbox.services import outbox_handler
from provider import ProviderClient


@outbox_handler(OutboxEntry.Kind.MEDIA_ADD)
class MediaAdd:
    """payload: {"url", "mediaCategory", "description", "mediaFormat"} for `entry.business`."""

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.add_media(entry.business.remote_id, [entry.payload])

    def reconcile(self, client: ProviderClient, entry: OutboxEntry):
        """After an unknown outcome: the upload took effect if its URL is now in the list."""
        items = client.get_media(entry.business.remote_id)
        matching = [item for item in items if item.url == entry.payload["url"]]
        return matching or None

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        media_upsert(tenant=entry.reseller, business=entry.business, items=reply,
                     seen_at=timezone.now())

"""Sending media uploads from the outbox."""

from __future__ import annotations

from django.utils import timezone

from media_app.mirroring import media_upsert
from media_app.models import MediaItem
from outbox.models import OutboxEntry
from outbox.services import NOT_ARRIVED, Arrived, Undecided, outbox_handler
from provider import ProviderClient


@outbox_handler(OutboxEntry.Kind.MEDIA_ADD)
class MediaAdd:
    """payload: {"url", "mediaCategory", "description", "mediaFormat"} for `entry.business`.

    Not safe to send twice (a second upload adds the picture again): an upload whose answer
    was lost is read back from the location's media list."""

    resend_effect = "uploads the picture or video a second time"

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.add_media(entry.business.remote_id, [entry.payload])

    def reconcile(self, client: ProviderClient, entry: OutboxEntry):
        """Arrived when the list holds one item of this address that the portal did not know
        before (and no other upload of this location sends the same address); not arrived
        when it holds none it did not know; undecided otherwise."""
        url = entry.payload["url"]
        known = set(MediaItem.objects.filter(business=entry.business, url=url)
                    .values_list("remote_id", flat=True))
        new = [item for item in client.get_media(entry.business.remote_id)
               if item.url == url and item.media_id not in known]
        if not new:
            return NOT_ARRIVED
        others = (OutboxEntry.objects.filter(kind=entry.kind, business=entry.business,
                                             payload__url=url)
                  .exclude(pk=entry.pk).exclude(state=OutboxEntry.State.REJECTED))
        if len(new) == 1 and not others.exists():
            return Arrived(new)
        return Undecided("The location's media list holds this address more than once, and "
                         "which upload each came from cannot be told. Check the media at the "
                         "provider, then say whether it arrived.")

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        if reply is None:
            return  # marked as arrived by a person: the next sync mirrors the item
        media_upsert(tenant=entry.reseller, business=entry.business, items=reply,
                     seen_at=timezone.now())

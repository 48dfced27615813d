"""Sending hierarchy changes from the outbox."""

from __future__ import annotations

from accounts.services import hierarchy_mapping_replace
from outbox.models import OutboxEntry
from provider import ProviderClient


class HierarchyUpdate:
    """payload: {"levels": {level name: level value}}, the whole mapping of `entry.business`.

    The provider replaces the mapping it holds with what is sent, so sending again is harmless:
    no reconciling is needed after an unknown outcome, the outbox simply retries.
    """

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.update_hierarchy(entry.business.remote_id, entry.payload["levels"])

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        # The provider has no read operation for hierarchies: an accepted write is the truth.
        if entry.business is not None:
            hierarchy_mapping_replace(tenant=entry.reseller, business=entry.business,
                                      levels=entry.payload["levels"])

"""Sending listing versions from the outbox (OutboxEntry.Kind.LISTING_CREATE)."""

from __future__ import annotations

from django.utils import timezone

from accounts.models import Business
from listings.editor.schema import COUNTRIES
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from outbox.services import outbox_handler
from provider import ProviderClient

RESTARTED_SITE_STATES = ("Submitted", "In Progress")
# businessInfo.location key -> Business column
ADDRESS_COLUMNS = {"address1": "address1", "address2": "address2", "subLocality": "sub_locality",
                   "city": "city", "state": "state", "zip": "zip", "countryCode": "country_code"}


@outbox_handler(OutboxEntry.Kind.LISTING_CREATE)
class ListingCreate:
    """payload: a create-listing body for `entry.business` (see listings.editor.diff)."""

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.create_listing(entry.business.remote_id, entry.payload)

    def reconcile(self, client: ProviderClient, entry: OutboxEntry):
        """After an unknown outcome: the create took effect if the status report carries the
        name sent and, unless that name is new, its sites started again (Submitted)."""
        report = client.location_status(entry.business.remote_id)
        sent_name = (entry.payload.get("businessInfo") or {}).get("name")
        if not sent_name or report.business_name != sent_name:
            return None
        renamed = sent_name != entry.business.name
        restarted = bool(report.submitted_count) or any(
            site.status in RESTARTED_SITE_STATES for site in report.sites)
        return report if renamed or restarted else None

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        ListingVersion.objects.filter(outbox_entry=entry).update(accepted_at=timezone.now())
        if entry.business_id is not None:
            business_update_from_listing(entry.business, entry.payload)


def business_update_from_listing(business: Business, payload: dict) -> None:
    """Copy the name, phone and address a listing sets into the Business row."""
    info = payload.get("businessInfo") or {}
    changes = {}
    if info.get("name"):
        changes["name"] = info["name"]
    if "phone" in info:
        changes["phone"] = info["phone"] or ""
    if "location" in info:
        # The provider replaces the address whole: a line the body leaves out is now empty.
        location = info["location"] or {}
        for key, column in ADDRESS_COLUMNS.items():
            changes[column] = str(location.get(key) or "")
        code = changes["country_code"] = changes["country_code"].upper()
        kept = business.country_name if code == business.country_code else ""
        changes["country_name"] = COUNTRIES.get(code, kept)
    if changes:
        Business.objects.filter(pk=business.pk).update(**changes)
        for column, value in changes.items():
            setattr(business, column, value)

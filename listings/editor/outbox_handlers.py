"""Sending listing versions from the outbox (OutboxEntry.Kind.LISTING_CREATE)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import Business
from listings.editor.schema import COUNTRIES
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from outbox.services import NOT_ARRIVED, Arrived, Undecided, outbox_handler
from provider import ProviderClient
from provider.formats import parse_status_moment

# businessInfo.location key -> Business column
ADDRESS_COLUMNS = {"address1": "address1", "address2": "address2", "subLocality": "sub_locality",
                   "city": "city", "state": "state", "zip": "zip", "countryCode": "country_code"}


@outbox_handler(OutboxEntry.Kind.LISTING_CREATE)
class ListingCreate:
    """payload: a create-listing body for `entry.business` (see listings.editor.diff).

    Not safe to send twice (a second create publishes the listing again), so a create whose
    answer was lost is read back from the location's status report, the one listing read the
    interface has, on evidence that tells this create apart from earlier ones.
    """

    # What sending it again does if it did arrive (told to the member who decides).
    resend_effect = ("publishes the listing a second time with the same values, and the "
                     "directories take it in again")

    def send(self, client: ProviderClient, entry: OutboxEntry):
        return client.create_listing(entry.business.remote_id, entry.payload)

    def reconcile(self, client: ProviderClient, entry: OutboxEntry):
        """- Not arrived: the report's `lastUpdated` is earlier than the moment the request
          left (by more than the clock skew allowed): a create updates it, so nothing reached
          the location since.
        - Arrived: the report carries the name this version sets, which the listing did not
          have before and no other change of this listing sets.
        - Otherwise undecided: the location changed since the request left (its sites move on
          by themselves), and nothing this version alone carries shows whether it was this."""
        report = client.location_status(entry.business.remote_id)
        updated = parse_status_moment(report.last_updated)
        skew = timedelta(seconds=settings.OUTBOX_PROVIDER_CLOCK_SKEW_SECONDS)
        if updated is not None and entry.doubt_since is not None and (
                updated < entry.doubt_since - skew):
            return NOT_ARRIVED
        sent_name = (entry.payload.get("businessInfo") or {}).get("name")
        if (sent_name and report.business_name == sent_name
                and sent_name != _name_before(entry)
                and not _name_set_elsewhere(entry, sent_name)):
            return Arrived(report)
        return Undecided("Its status report cannot tell: the location changed at the provider "
                         "since the request left, and nothing this version alone sets shows "
                         "there. Check the listing at the provider, then say whether it "
                         "arrived.")

    def on_accepted(self, entry: OutboxEntry, reply) -> None:
        ListingVersion.objects.filter(outbox_entry=entry).update(accepted_at=timezone.now())
        if entry.business_id is not None:
            business_update_from_listing(entry.business, entry.payload)


def _name_before(entry: OutboxEntry) -> str:
    """The listing's name before this version: its last accepted version's, else the
    business's as the portal holds it."""
    version = ListingVersion.objects.filter(outbox_entry=entry).only("number").first()
    earlier = ListingVersion.objects.filter(
        reseller=entry.reseller, business=entry.business, accepted_at__isnull=False)
    if version is not None:
        earlier = earlier.filter(number__lt=version.number)
    document = earlier.order_by("-number").values_list("document", flat=True).first()
    name = ((document or {}).get("businessInfo") or {}).get("name")
    return name or entry.business.name


def _name_set_elsewhere(entry: OutboxEntry, name: str) -> bool:
    """Whether another change of this listing sets the same name (and might be the one the
    provider shows)."""
    return (OutboxEntry.objects.filter(kind=OutboxEntry.Kind.LISTING_CREATE,
                                       business=entry.business,
                                       payload__businessInfo__name=name)
            .exclude(pk=entry.pk).exclude(state=OutboxEntry.State.REJECTED).exists())


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

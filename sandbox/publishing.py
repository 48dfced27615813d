"""Create listing: validate against the stored listing, store it, update the business, and
start the sites on their way. Every request for a known location is kept as a submission."""

from __future__ import annotations

import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from sandbox.errors import ApiError, bad_input
from sandbox.listing_rules import ListingError, validate_listing
from sandbox.models import Business, Listing, ListingSubmission, PartnerAccount
from sandbox.status import start_site_statuses

_MAX_KEPT_BODY = 1_000_000
MAX_NAME_LENGTH = 1000  # interface.md: a business name has at most 1000 characters


def merge_listing(previous: dict[str, Any] | None, accepted: dict[str, Any]) -> dict[str, Any]:
    """The listing after this call: a field the payload leaves out keeps its stored value.

    The same field-level view the rules take (``listing_rules._Listing.effective``): each
    top-level object is merged field by field; anything deeper is replaced whole.
    """
    merged = {section: dict(fields) for section, fields in (previous or {}).items()}
    for section, fields in accepted.items():
        if isinstance(fields, dict) and isinstance(merged.get(section), dict):
            merged[section].update(fields)
        else:
            merged[section] = fields
    return merged


def _apply_business_info(
    location: Business, listing: dict[str, Any], now: datetime.datetime
) -> None:
    info = listing.get("businessInfo") or {}
    address = info.get("location") or {}
    location.name = info.get("name") or location.name
    if "phone" in info:
        location.phone = info["phone"]
    if "websiteUrl" in info:
        location.website_url = info["websiteUrl"]
    if "emailId" in info:
        location.email = info["emailId"]
    for field, key in (
        ("address1", "address1"),
        ("address2", "address2"),
        ("sub_locality", "subLocality"),
        ("city", "city"),
        ("state", "state"),
    ):
        if key in address:
            setattr(location, field, address[key])
    if "zip" in address:
        location.zip = str(address["zip"])
    if address.get("countryCode"):
        location.country_code = address["countryCode"].upper()
    location.last_updated = now
    location.save()


def _record(
    partner: PartnerAccount, location: Business, body: str, *, error: ApiError | None, now
) -> None:
    ListingSubmission.objects.create(
        partner=partner,
        location=location,
        received_at=now,
        # PostgreSQL text cannot hold NUL; a body that carried one was rejected anyway.
        body=body[:_MAX_KEPT_BODY].replace("\x00", "\ufffd"),
        accepted=error is None,
        error_code=error.code if error else None,
        error_message=error.message if error else "",
    )


def submit_listing(
    partner: PartnerAccount, location: Business, payload: Any, raw_body: str
) -> Listing:
    """Accept or reject one create-listing body for ``location``; raise ApiError to reject."""
    now = timezone.now()
    try:
        with transaction.atomic():
            Listing.objects.get_or_create(location=location, defaults={"partner": partner})
            listing = (
                Listing.objects.select_for_update()
                .select_related("location")
                .get(location=location)
            )
            previous = listing.payload if listing.fixed else None
            try:
                accepted = validate_listing(payload, previous=previous, today=timezone.localdate())
            except ListingError as rejected:
                raise ApiError(400, rejected.code, rejected.message) from rejected
            name = (accepted.get("businessInfo") or {}).get("name") or ""
            if len(name) > MAX_NAME_LENGTH:
                raise bad_input(f"businessInfo.name must be at most {MAX_NAME_LENGTH} characters")
            listing.payload = merge_listing(previous, accepted)
            listing.fixed = True
            listing.version += 1
            listing.submitted_at = now
            listing.save()
            _apply_business_info(listing.location, listing.payload, now)
            start_site_statuses(listing, step_seconds=partner.status_step_seconds, now=now)
            _record(partner, location, raw_body, error=None, now=now)
    except ApiError as error:
        _record(partner, location, raw_body, error=error, now=now)
        raise
    return listing


def record_unreadable(partner: PartnerAccount, location: Business, raw_body: str, error: ApiError):
    """Keep a body that was not even JSON, so support can see what was sent."""
    _record(partner, location, raw_body, error=error, now=timezone.now())

"""The listing lifecycle on directory sites, and the location status report built from it.

After an accepted create, each connected, not opted-out site goes Submitted -> In Progress ->
Synced or Action Required, one step every ``status_step_seconds`` of the partner. The outcome
and its error text are decided at submission from a hash of (location, site, listing version),
so the same history always gives the same statuses. Time only moves a site when somebody looks:
``advance_location_sites`` (called by the status report) and ``advance_due_sites`` (for a
periodic job) apply every step that is due, each at the instant it was due.

``change_site_status`` is the one place where a stored site status changes. Every batch of
changes to one location publishes one LISTING_UPDATED event (`sandbox.events`) naming the sites
that moved.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass

from django.db.models import F
from django.utils import timezone

from sandbox.catalog import (
    ACTION_REQUIRED_ERRORS,
    PROFILE_SITE_ID,
    SITES,
    SITES_BY_ID,
    SiteState,
)
from sandbox.events import LISTING_UPDATED, event_publish
from sandbox.models import Business, BusinessStatus, Listing, SiteStatus

ACTION_REQUIRED_PERCENT = 15
LAST_UPDATED_FORMAT = "%m/%d/%Y %H:%M:%S"


def planned_outcome(location_number: int, site_id: int, version: int) -> tuple[str, list[str]]:
    """Final status of a site for one submission: Synced, or Action Required with its error."""
    digest = hashlib.sha256(f"{location_number}:{site_id}:{version}".encode()).digest()
    value = int.from_bytes(digest[:8], "big")
    if value % 100 < ACTION_REQUIRED_PERCENT:
        return SiteState.ACTION_REQUIRED, [
            ACTION_REQUIRED_ERRORS[value // 100 % len(ACTION_REQUIRED_ERRORS)]
        ]
    return SiteState.SYNCED, []


def change_site_status(
    site: SiteStatus,
    status: str,
    *,
    errors: list[str],
    at: datetime.datetime,
    next_change_at: datetime.datetime | None = None,
) -> bool:
    """Store a site's new status; the hook point for anything that reacts to a change.

    Compare-and-set on ``revision``: when two requests advance the same site at once, only one
    of them writes (and would notify). Returns whether this call made the change.
    """
    site_info = SITES_BY_ID.get(site.site_id)
    url = (
        site_info.listing_url(site.location.number)
        if (site_info and status == SiteState.SYNCED)
        else ""
    )
    if site.pk is None:
        site.status, site.errors, site.url = status, errors, url
        site.updated_at, site.next_change_at = at, next_change_at
        site.save()
        return True
    written = SiteStatus.objects.filter(pk=site.pk, revision=site.revision).update(
        status=status,
        errors=errors,
        url=url,
        updated_at=at,
        next_change_at=next_change_at,
        outcome=site.outcome,
        outcome_errors=site.outcome_errors,
        step_seconds=site.step_seconds,
        revision=F("revision") + 1,
    )
    if not written:
        return False
    site.status, site.errors, site.url = status, errors, url
    site.updated_at, site.next_change_at = at, next_change_at
    site.revision += 1
    return True


def opted_out_site_ids(payload: dict) -> set[int]:
    opt_out = payload.get("optOut") or {}
    if opt_out.get("profileListingOptOut") or opt_out.get("businessProfileOptOut"):
        return {PROFILE_SITE_ID}
    return set()


def publish_listing_updated(location: Business, sites: list[SiteStatus],
                            at: datetime.datetime) -> None:
    if not sites:
        return
    event_publish(business=location, event_name=LISTING_UPDATED, at=at, data={
        "locationStatus": location_status(location),
        "sites": [{"siteId": site.site_id,
                   "siteName": SITES_BY_ID[site.site_id].name if site.site_id in SITES_BY_ID
                   else "",
                   "status": site.status} for site in sites],
    })


def start_site_statuses(listing: Listing, *, step_seconds: int, now: datetime.datetime) -> None:
    """Put every site of the location on its way after an accepted create."""
    location = listing.location
    existing = {site.site_id: site for site in location.site_statuses.all()}
    opted_out = opted_out_site_ids(listing.payload)
    started = []
    for site_info in SITES:
        site = existing.get(site_info.site_id) or SiteStatus(
            partner_id=location.partner_id, location=location, site_id=site_info.site_id
        )
        site.location = location
        if site_info.site_id in opted_out:
            site.outcome, site.outcome_errors = "", []
            change_site_status(site, SiteState.OPTED_OUT, errors=[], at=now)
        elif not site.connected:
            site.outcome, site.outcome_errors = "", []
            change_site_status(
                site, SiteState.CONNECT, errors=["Connect this site's account to publish"], at=now
            )
        else:
            site.outcome, site.outcome_errors = planned_outcome(
                location.number, site_info.site_id, listing.version
            )
            site.step_seconds = step_seconds
            change_site_status(
                site,
                SiteState.SUBMITTED,
                errors=[],
                at=now,
                next_change_at=now + datetime.timedelta(seconds=step_seconds),
            )
        started.append(site)
    publish_listing_updated(location, started, now)


def _advance(site: SiteStatus, now: datetime.datetime) -> bool:
    """Apply the site's due steps; returns whether it moved."""
    step = datetime.timedelta(seconds=site.step_seconds)
    moved = False
    while site.next_change_at is not None and site.next_change_at <= now:
        due = site.next_change_at
        if site.status == SiteState.SUBMITTED:
            changed = change_site_status(
                site, SiteState.IN_PROGRESS, errors=[], at=due, next_change_at=due + step
            )
        else:
            changed = change_site_status(
                site, site.outcome or SiteState.SYNCED, errors=list(site.outcome_errors), at=due
            )
        if not changed:
            return moved  # another request moved it meanwhile
        moved = True
    return moved


def _advance_and_publish(due: list[SiteStatus], now: datetime.datetime) -> int:
    moved_by_location: dict[int, list[SiteStatus]] = {}
    for site in due:
        if _advance(site, now):
            moved_by_location.setdefault(site.location_id, []).append(site)
    for sites in moved_by_location.values():
        publish_listing_updated(sites[0].location, sites, now)
    return sum(len(sites) for sites in moved_by_location.values())


def advance_location_sites(location: Business, now: datetime.datetime | None = None) -> None:
    now = now or timezone.now()
    due = list(location.site_statuses.filter(next_change_at__lte=now).select_related("location"))
    _advance_and_publish(due, now)


def advance_due_sites(now: datetime.datetime | None = None, limit: int = 10_000) -> int:
    """Apply every due step of every partner; returns how many sites moved. For a periodic job."""
    now = now or timezone.now()
    due = list(
        SiteStatus.objects.filter(next_change_at__lte=now)
        .select_related("location")
        .order_by("next_change_at")[:limit]
    )
    return _advance_and_publish(due, now)


# ------------------------------------------------------------------------------ report
@dataclass(frozen=True)
class SiteCounts:
    synced: int = 0
    submitted: int = 0
    need_updates: int = 0
    opted_out: int = 0
    not_connected: int = 0


def count_sites(statuses: list[str]) -> SiteCounts:
    """Each site falls in exactly one count, so the five add up to the number of sites."""
    return SiteCounts(
        synced=sum(1 for s in statuses if s == SiteState.SYNCED),
        submitted=sum(1 for s in statuses if s in (SiteState.SUBMITTED, SiteState.IN_PROGRESS)),
        need_updates=sum(1 for s in statuses if s == SiteState.ACTION_REQUIRED),
        opted_out=sum(1 for s in statuses if s == SiteState.OPTED_OUT),
        not_connected=sum(
            1
            for s in statuses
            if s
            not in (
                SiteState.SYNCED,
                SiteState.SUBMITTED,
                SiteState.IN_PROGRESS,
                SiteState.ACTION_REQUIRED,
                SiteState.OPTED_OUT,
            )
        ),
    )


def percentage(part: int, total: int) -> str:
    return f"{(part * 100 / total) if total else 0:.2f}%"


def location_status(location: Business) -> str:
    if location.status == BusinessStatus.INACTIVE:
        return "Disabled"
    listing = Listing.objects.filter(location=location, fixed=True).exists()
    return "Published" if listing else "Scan State"


def status_report(location: Business, now: datetime.datetime | None = None) -> dict:
    """The location listing status report of interface.md, after applying due steps."""
    advance_location_sites(location, now)
    stored = {site.site_id: site for site in location.site_statuses.all()}
    entries = []
    for site_info in SITES:
        site = stored.get(site_info.site_id)
        # A site never touched by a create or the seeder is one the location is not connected to.
        status = site.status if site else SiteState.CONNECT
        entry = {"siteId": site_info.site_id, "siteName": site_info.name, "status": status}
        if site and site.errors:
            entry["errors"] = list(site.errors)
        if site and site.url:
            entry["url"] = site.url
        entries.append(entry)
    counts = count_sites([entry["status"] for entry in entries])
    total = len(entries)
    times = [site.updated_at for site in stored.values()] + [location.last_updated]
    state = location_status(location)
    report = {
        "businessName": location.name,
        "activationStatus": location.status,
        "lastUpdated": max(times).astimezone(datetime.UTC).strftime(LAST_UPDATED_FORMAT),
        "locationStatus": state,
        "publishListings": (
            "Listings are published; update them with create listing"
            if state == "Published"
            else f"Publish your listings to push your business information to {total} sites"
        ),
    }
    if state == "Scan State":
        report["errors"] = ["Listings have not been published for this location yet"]
    elif state == "Disabled":
        report["errors"] = ["The location is inactive"]
    report.update(
        {
            "totalSites": total,
            "syncedCount": counts.synced,
            "submittedCount": counts.submitted,
            "needUpdatesCount": counts.need_updates,
            "optedOutCount": counts.opted_out,
            "notConnectedCount": counts.not_connected,
            "syncedPercentage": percentage(counts.synced, total),
            "submittedPercentage": percentage(counts.submitted, total),
            "needUpdatesPercentage": percentage(counts.need_updates, total),
            "optedOutPercentage": percentage(counts.opted_out, total),
            "notConnectedPercentage": percentage(counts.not_connected, total),
            "sites": entries,
        }
    )
    return report

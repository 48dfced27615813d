"""Every change of a site's status is kept with its time and where it was seen (a sync, a
provider event), written by the mirror in the same statements as the sites, and only when the
status really changed; the site keeps since when it holds its status."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Business
from events.models import ProviderEvent
from events.services import event_receiver_enable, provider_event_process
from history.selectors import history_status_changes
from listings.mirroring import status_reports_mirror
from listings.models import ListingSite, SiteStatusChange
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from provider.types import LocationStatusReport
from sandbox import events as sandbox_events
from sandbox import models as sandbox
from sandbox.catalog import SiteState
from sandbox.status import change_site_status, publish_listing_updated
from tests.factories import BusinessFactory, ResellerFactory
from tests.history.conftest import run_sync

pytestmark = pytest.mark.django_db(transaction=True)


def move_site(number: int, status: str) -> sandbox.SiteStatus:
    """Move one site of the sandbox's location `number` to `status`, as the provider would."""
    sandbox.SiteStatus.objects.update(next_change_at=None)  # nothing else moves meanwhile
    site = (sandbox.SiteStatus.objects.select_related("location")
            .filter(location__number=number).exclude(status=status).order_by("site_id").first())
    now = timezone.now()
    assert change_site_status(site, status, errors=[], at=now)
    publish_listing_updated(site.location, [site], now)
    return site


def test_a_sync_records_the_change_of_a_sites_status_and_nothing_else(sandbox_reseller,
                                                                       seeded):
    reseller = sandbox_reseller
    sandbox.SiteStatus.objects.update(next_change_at=None)
    run_sync(reseller)
    with tenant_scope(reseller):
        assert not SiteStatusChange.objects.exists()  # a first sighting is no change
        first_seen = ListingSite.objects.first()
        assert first_seen.status_since is not None and first_seen.previous_status is None

    number = seeded["location_numbers"][0]
    before = sandbox.SiteStatus.objects.get(
        pk=move_site(number, SiteState.ACTION_REQUIRED).pk)
    run_sync(reseller, "listing_status")
    with tenant_scope(reseller):
        business = Business.objects.get(remote_id=number)
        change = SiteStatusChange.objects.get()
        site = ListingSite.objects.get(business=business, site_id=before.site_id)
        assert (change.business_id, change.site_id, change.to_status, change.source) == (
            business.pk, before.site_id, SiteState.ACTION_REQUIRED, "sync")
        assert change.from_status not in ("", SiteState.ACTION_REQUIRED)
        assert change.site_name == site.site_name
        assert (site.previous_status, site.status_since) == (change.from_status, change.at)
        assert list(history_status_changes(tenant=reseller, business=business)) == [change]
        others = ListingSite.objects.exclude(pk=site.pk)
        unchanged_since = dict(others.values_list("pk", "status_since"))

    run_sync(reseller, "listing_status")  # nothing moved: nothing recorded
    with tenant_scope(reseller):
        assert SiteStatusChange.objects.count() == 1
        assert ListingSite.objects.get(pk=site.pk).status_since == change.at
        assert dict(others.values_list("pk", "status_since")) == unchanged_since


def test_a_provider_event_records_the_change_it_brings(sandbox_reseller, seeded, settings,
                                                        live_server):
    reseller = sandbox_reseller
    settings.PORTAL_PUBLIC_URL = live_server.url
    sandbox.SiteStatus.objects.update(next_change_at=None)
    run_sync(reseller, "businesses", "listing_status")
    with tenant_scope(reseller):
        event_receiver_enable(tenant=reseller, actor=None)
        for entry in OutboxEntry.objects.filter(state=OutboxEntry.State.PENDING):
            outbox.outbox_send(tenant=reseller, entry_id=entry.pk)
    number = seeded["location_numbers"][1]
    moved = move_site(number, SiteState.SYNCED)
    sandbox_events.deliver_due()  # the sandbox tells the portal, over HTTP
    with tenant_scope(reseller):
        event = ProviderEvent.objects.get(event_name="LISTING_UPDATED")
        assert provider_event_process(tenant=reseller, event_id=event.pk).state == "processed"
        change = SiteStatusChange.objects.get()
    assert (change.site_id, change.to_status, change.source) == (
        moved.site_id, SiteState.SYNCED, "event")
    assert change.business.remote_id == number


def _report(**statuses: str) -> LocationStatusReport:
    sites = [{"siteId": int(site_id.removeprefix("s")), "siteName": f"Site {site_id}",
              "status": status, "errors": [], "url": ""} for site_id, status in statuses.items()]
    return LocationStatusReport.from_json({
        "businessName": "Shop", "locationStatus": "Published", "totalSites": len(sites),
        "syncedCount": sum(s["status"] == "Synced" for s in sites), "submittedCount": 0,
        "needUpdatesCount": 0, "optedOutCount": 0, "notConnectedCount": 0, "errors": [],
        "sites": sites})


def test_the_mirror_compares_in_its_upsert_without_a_statement_more():
    reseller = ResellerFactory()
    shops = [BusinessFactory(reseller=reseller) for _ in range(3)]
    first = timezone.now() - dt.timedelta(hours=2)
    # In a transaction, as the sync and a refresh call it.
    with tenant_scope(reseller), transaction.atomic():
        status_reports_mirror(tenant=reseller, seen_at=first, reports=[
            (shop, _report(s1="Submitted", s2="Synced")) for shop in shops])
        with CaptureQueriesContext(connection) as unchanged:
            status_reports_mirror(tenant=reseller, seen_at=first + dt.timedelta(hours=1),
                                  reports=[(shop, _report(s1="Submitted", s2="Synced"))
                                           for shop in shops])
        assert not SiteStatusChange.objects.exists()
        later = first + dt.timedelta(hours=2)
        with CaptureQueriesContext(connection) as changed:
            status_reports_mirror(tenant=reseller, seen_at=later, source="refresh", reports=[
                (shops[0], _report(s1="Synced", s2="Synced")),
                (shops[1], _report(s1="Submitted", s2="Synced")),
                (shops[2], _report(s1="In Progress", s2="Connect"))])
        # The changes are one INSERT more, only when there are some.
        assert len(changed.captured_queries) == len(unchanged.captured_queries) + 1
        changes = sorted(SiteStatusChange.objects.values_list(
            "business_id", "site_id", "from_status", "to_status", "source"))
        assert changes == sorted([
            (shops[0].pk, 1, "Submitted", "Synced", "refresh"),
            (shops[2].pk, 1, "Submitted", "In Progress", "refresh"),
            (shops[2].pk, 2, "Synced", "Connect", "refresh")])
        assert set(SiteStatusChange.objects.values_list("at", flat=True)) == {later}
        since = {(site.business_id, site.site_id): (site.status_since, site.previous_status)
                 for site in ListingSite.objects.all()}
        assert since[(shops[0].pk, 1)] == (later, "Submitted")
        assert since[(shops[0].pk, 2)] == (first, None)  # held since its first sighting
        assert since[(shops[1].pk, 1)] == (first, None)

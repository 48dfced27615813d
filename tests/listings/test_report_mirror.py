"""What mirroring a status report copies onto its business, and what a removed business's
report stays."""

import pytest
from django.utils import timezone

from accounts.selectors import business_list
from listings.mirroring import status_reports_mirror
from listings.models import ListingStatusReport
from listings.selectors import listing_health, listing_health_of_account
from portal.tenancy import tenant_scope
from provider.types import LocationStatusReport
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


def report(*, synced: int, total: int, need_updates: int = 0, errors=()) -> LocationStatusReport:
    return LocationStatusReport.from_json({
        "businessName": "Shop", "locationStatus": "Published", "totalSites": total,
        "syncedCount": synced, "submittedCount": 0, "needUpdatesCount": need_updates,
        "optedOutCount": 0, "notConnectedCount": total - synced - need_updates,
        "errors": list(errors), "sites": [],
    })


def test_the_business_keeps_its_reports_synced_share_and_need_for_action():
    tenant = ResellerFactory()
    shop = BusinessFactory(reseller=tenant)
    with tenant_scope(tenant):
        status_reports_mirror(tenant=tenant, reports=[(shop, report(synced=3, total=4,
                                                                    need_updates=1))],
                              seen_at=timezone.now())
        shop.refresh_from_db()
        assert (shop.synced_percent, shop.needs_action) == (75.0, True)

        status_reports_mirror(tenant=tenant, reports=[(shop, report(synced=4, total=4))],
                              seen_at=timezone.now())
        shop.refresh_from_db()
        assert (shop.synced_percent, shop.needs_action) == (100.0, False)

        status_reports_mirror(tenant=tenant, reports=[(shop, report(synced=0, total=0,
                                                                    errors=["Bad phone"]))],
                              seen_at=timezone.now())
        shop.refresh_from_db()
        assert (shop.synced_percent, shop.needs_action) == (None, True)


def test_a_removed_business_keeps_its_refreshed_report_out_of_the_accounts_totals():
    tenant = ResellerFactory()
    current = BusinessFactory(reseller=tenant)
    gone = BusinessFactory(reseller=tenant, removed_at=timezone.now())
    with tenant_scope(tenant):
        status_reports_mirror(tenant=tenant, seen_at=timezone.now(), reports=[
            (current, report(synced=1, total=2, need_updates=1)),
            (gone, report(synced=5, total=9, need_updates=4)),
        ])
        assert ListingStatusReport.objects.get(business=gone).removed_at == gone.removed_at
        assert ListingStatusReport.objects.get(business=current).removed_at is None
        account = listing_health_of_account(tenant=tenant)
        assert account == listing_health(locations=business_list(tenant=tenant))
        assert (account["total_sites"], account["reports"], account["needs_action"]) == (2, 1, 1)

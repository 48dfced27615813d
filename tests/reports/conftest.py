"""A reseller with two clients (two enterprises), their locations' status reports, late
sites, recorded days and the agency's work, in a month of the past: March 2026."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.utils import timezone
from pypdf import PdfReader

from accounts.models import Business
from bulk.models import BulkChange, BulkChangeItem
from history.delays import sites_due_refresh
from listings.models import ListingSite, ListingStatusReport, ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, ResellerFactory
from tests.history.conftest import account_day, business_day

D = dt.date
FROM, TO = D(2026, 3, 1), D(2026, 3, 31)
PERIOD = {"from": FROM.isoformat(), "to": TO.isoformat()}


def moment(day: dt.date, hour: int = 12) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time(hour)))


def pdf_text(data: bytes) -> str:
    """The PDF's words, as a reader copies them, on one line."""
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text().split()) for page in reader.pages)


def status_report(business, *, total, synced, submitted, need, needs_action, status="Published"):
    ListingStatusReport.unscoped.create(
        reseller=business.reseller, remote_id=business.remote_id, business=business,
        location_status=status, total_sites=total, synced_count=synced,
        submitted_count=submitted, need_updates_count=need, needs_action=needs_action)


def late_site(business, site_id, name, status, days):
    ListingSite.unscoped.create(
        reseller=business.reseller, business=business, site_id=site_id, site_name=name,
        status=status, status_since=timezone.now() - dt.timedelta(days=days),
        previous_status="Synced")
    # Written below the mirror: its due moment, as the end of a sync run gives it.
    with tenant_scope(business.reseller):
        sites_due_refresh(tenant=business.reseller)


def version(business, number, summary, day, accepted=True, state=OutboxEntry.State.ACCEPTED):
    entry = OutboxEntry.unscoped.create(
        reseller=business.reseller, kind=OutboxEntry.Kind.LISTING_CREATE, business=business,
        summary=summary, state=state, created_at=moment(day))
    return ListingVersion.unscoped.create(
        reseller=business.reseller, business=business, number=number, summary=summary,
        outbox_entry=entry, created_at=moment(day),
        accepted_at=moment(day, 15) if accepted else None)


@pytest.fixture
def agency():
    reseller = ResellerFactory(name="Northwind Digital", slug="northwind",
                               brand_product_name="Northwind Reports",
                               brand_support_email="help@northwind.example",
                               brand_primary_colour="#0b4f6c")
    brand = BusinessFactory(reseller=reseller, remote_id=100, tree_path="/100/",
                            type=Business.Type.ENTERPRISE_LOCATION, name="Bakery Brand")
    shop = BusinessFactory(reseller=reseller, remote_id=101, parent=brand, depth=1,
                           tree_path="/100/101/", name="Corner Shop")
    mall = BusinessFactory(reseller=reseller, remote_id=102, parent=brand, depth=1,
                           tree_path="/100/102/", name="Mall Kiosk")
    other = BusinessFactory(reseller=reseller, remote_id=200, tree_path="/200/",
                            type=Business.Type.ENTERPRISE_LOCATION, name="Garage Group")
    far = BusinessFactory(reseller=reseller, remote_id=201, parent=other, depth=1,
                          tree_path="/200/201/", name="Faraway Outlet")
    # Now: the shop has a few sites to update, the kiosk many, the outlet none.
    status_report(shop, total=20, synced=15, submitted=2, need=3, needs_action=True)
    status_report(mall, total=10, synced=4, submitted=0, need=6, needs_action=True)
    status_report(far, total=10, synced=10, submitted=0, need=0, needs_action=False)
    late_site(shop, 226, "Search Engine", "Submitted", days=30)  # usually 5 days
    late_site(mall, 2, "Profile Platform", "Action Required", days=10)  # grace: 3 days
    late_site(far, 110, "Social Network", "In Progress", days=40)
    late_site(shop, 100, "Provider Listings", "Submitted", days=1)  # not late yet

    # The days recorded: the brand's (its locations summed) and the account's.
    days = [  # (day, synced of 30, sites needing action, locations needing action, 5-star, 1-star)
        (D(2026, 2, 28), 12, 10, 2, 10, 5),
        (D(2026, 3, 10), 15, 9, 2, 14, 5),
        (D(2026, 3, 31), 19, 9, 2, 18, 4),
    ]
    for day, synced, need, flagged, five, one in days:
        figures = {"locations": 2, "reports": 2, "total_sites": 30, "synced": synced,
                   "submitted": 30 - synced - need, "need_updates": need,
                   "needs_action": flagged, "reviews": five + one + 8, "rating_1": one,
                   "rating_2": 0, "rating_3": 2, "rating_4": 6, "rating_5": five}
        business_day(brand, day, **figures)
        account_day(reseller, day, **{**figures, "locations": 3, "total_sites": 40,
                                      "synced": synced + 10},
                    competitors=4, competitor_rating="3.90", competitor_reviews=250,
                    ranking_rating="4.10", ranking_reviews=120, ranking_positive=80,
                    ranking_neutral=20, ranking_negative=20, survey_responses=12,
                    survey_score="8.25", nps_promoters=7, nps_passives=3, nps_detractors=2)
    business_day(brand, D(2026, 4, 2), locations=2, reports=2, total_sites=30, synced=29)

    # The agency's work: in March for the shop and the outlet, one in April.
    version(shop, 1, "Opening hours", D(2026, 3, 10))
    version(shop, 2, "Phone number", D(2026, 3, 20), accepted=False,
             state=OutboxEntry.State.REJECTED)
    version(far, 1, "Description", D(2026, 3, 12))
    version(mall, 1, "Website", D(2026, 4, 5))
    OutboxEntry.unscoped.create(
        reseller=reseller, kind=OutboxEntry.Kind.MEDIA_ADD, business=mall,
        summary="Photo: storefront", state=OutboxEntry.State.ACCEPTED,
        created_at=moment(D(2026, 3, 18)), finished_at=moment(D(2026, 3, 18), 13))
    change = BulkChange.unscoped.create(
        reseller=reseller, state=BulkChange.State.DONE, started_at=moment(D(2026, 3, 5)),
        set={"additionalInfo": {"hoursOfOperations": []}})
    for position, business in enumerate((shop, mall, far)):
        BulkChangeItem.unscoped.create(
            reseller=reseller, change=change, business=business,
            business_number=business.remote_id, position=position,
            state=BulkChangeItem.State.ACCEPTED)
    return {"reseller": reseller, "brand": brand, "shop": shop, "mall": mall,
            "other": other, "far": far}

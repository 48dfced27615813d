"""The demo's past: generated once from today's figures, the same each time, plausible (the
sites a day had add up, fewer synced before), and never over a real history."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import Business
from demo.services import DEMO_WAITING_DAYS, demo_history_backfill
from history.ageing import late_sites
from history.models import AccountDay, BusinessDay
from portal.tenancy import tenant_scope
from reviews_app.models import ReviewCount
from tests.accounts.ui_factories import SiteFactory, StatusReportFactory
from tests.factories import BusinessFactory, ResellerFactory
from tests.history.conftest import business_day

pytestmark = pytest.mark.django_db

SITES = ("synced", "submitted", "need_updates", "opted_out", "not_connected")


def demo_account():
    reseller = ResellerFactory()
    brand = BusinessFactory(reseller=reseller, remote_id=10, tree_path="/10/", depth=0,
                            type=Business.Type.ENTERPRISE_LOCATION)
    for n in range(3):
        shop = BusinessFactory(reseller=reseller, remote_id=11 + n, parent=brand, depth=1,
                               tree_path=f"/10/{11 + n}/")
        StatusReportFactory(business=shop, total_sites=20, synced_count=15, submitted_count=2,
                            need_updates_count=1, opted_out_count=1, not_connected_count=1,
                            needs_action=True)
    ReviewCount.unscoped.create(reseller=reseller, remote_id=reseller.account_number,
                                review_count=120, count_by_rating={"5": 80, "4": 20, "1": 20})
    return reseller


def figures(reseller):
    with tenant_scope(reseller):
        return [(row.day, row.synced, row.reviews, str(row.average_rating))
                for row in AccountDay.objects.order_by("day")]


def test_the_demo_gets_a_deterministic_plausible_past_once():
    first, second = demo_account(), demo_account()
    with tenant_scope(first):
        assert demo_history_backfill(tenant=first, days=30) == 30 * 5  # 4 businesses + account
        assert demo_history_backfill(tenant=first, days=30) == 0  # once only
        rows = list(BusinessDay.objects.all())
        today = timezone.localdate()
        assert {row.day for row in rows} == {today - dt.timedelta(days=n) for n in range(31)}
        for row in rows:
            assert sum(getattr(row, name) for name in SITES) == row.total_sites
        account = list(AccountDay.objects.order_by("day"))
        assert account[0].synced < account[-1].synced == 45
        assert account[0].reviews < account[-1].reviews == 120
        assert account[0].average_rating < account[-1].average_rating
    with tenant_scope(second):
        demo_history_backfill(tenant=second, days=30)
    assert figures(first) == figures(second)


def test_a_real_history_is_never_overwritten():
    reseller = demo_account()
    shop = Business.unscoped.filter(reseller=reseller, type=Business.Type.BUSINESS).first()
    business_day(shop, timezone.localdate() - dt.timedelta(days=3), synced=1)
    with tenant_scope(reseller):
        assert demo_history_backfill(tenant=reseller, days=30) == 0
        assert BusinessDay.objects.filter(day__lt=timezone.localdate()).count() == 1


def test_the_demos_waiting_sites_get_ages_and_some_are_late():
    """Its first sync saw every site for the first time: without a past, no site could be late
    for days. The sites never seen changing get ages of up to DEMO_WAITING_DAYS, the same each
    time; a site seen changing, or synced, keeps its own."""
    reseller = demo_account()
    shops = list(Business.unscoped.filter(reseller=reseller, type=Business.Type.BUSINESS))
    now = timezone.now()
    waiting = [SiteFactory(business=shop, site_id=100 + n, status=status, status_since=now)
               for shop in shops for n, status in enumerate(
                   ["Submitted", "In Progress", "Action Required"] * 10)]
    seen_changing = SiteFactory(business=shops[0], site_id=999, status="Submitted",
                                status_since=now, previous_status="Synced")
    synced = SiteFactory(business=shops[0], site_id=998, status="Synced", status_since=now)
    with tenant_scope(reseller):
        assert list(late_sites(tenant=reseller)) == []
        demo_history_backfill(tenant=reseller, days=30)
        for site in (*waiting, seen_changing, synced):
            site.refresh_from_db()
        for site in waiting:  # by the site, whatever the run
            age = dt.timedelta(days=site.pk * 7 % DEMO_WAITING_DAYS, hours=site.pk % 24)
            assert abs(now - site.status_since - age) < dt.timedelta(minutes=1)
        assert max(now - site.status_since for site in waiting) > dt.timedelta(days=30)
        assert seen_changing.status_since == synced.status_since == now
        late = list(late_sites(tenant=reseller))
        assert 0 < len(late) < len(waiting)
        assert all(row.since_is_lower_bound for row in late)
        assert all(row.age_days - row.delay_days == row.late_by_days for row in late)

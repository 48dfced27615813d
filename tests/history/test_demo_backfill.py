"""The demo's past: generated once from today's figures, the same each time, plausible (the
sites a day had add up, fewer synced before), and never over a real history."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import Business
from demo.services import demo_history_backfill
from history.models import AccountDay, BusinessDay
from portal.tenancy import tenant_scope
from reviews_app.models import ReviewCount
from tests.accounts.ui_factories import StatusReportFactory
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

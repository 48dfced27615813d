"""Trends over a known history, exactly: the series by day, week and month (each point the last
recorded day of its period), this month and this quarter against the ones before, whose history
a member sees, and the charts drawn from them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from accounts.models import Business, Role
from history.selectors import (
    history_comparisons,
    history_days,
    history_series,
    history_subject,
)
from history.trends import trends_build
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory
from tests.history.conftest import account_day, business_day

pytestmark = pytest.mark.django_db

D = dt.date
# (day, synced of 20 sites, sites needing action, locations needing action, 5-star, 1-star)
HISTORY = [
    (D(2026, 3, 30), 8, 6, 1, 4, 2),
    (D(2026, 3, 31), 10, 5, 1, 6, 2),  # the end of the first quarter
    (D(2026, 4, 29), 11, 5, 1, 7, 2),
    (D(2026, 4, 30), 12, 4, 1, 8, 2),  # the end of April
    (D(2026, 5, 31), 14, 3, 1, 9, 3),  # the end of May, a Sunday
    (D(2026, 6, 1), 15, 2, 1, 9, 3),  # a Monday
    (D(2026, 6, 10), 18, 1, 0, 12, 3),  # the latest
]
TODAY = D(2026, 6, 12)


@pytest.fixture
def shop():
    reseller = ResellerFactory()
    brand = BusinessFactory(reseller=reseller, remote_id=100, tree_path="/100/", depth=0,
                            type=Business.Type.ENTERPRISE_LOCATION, name="Brand")
    shop = BusinessFactory(reseller=reseller, remote_id=101, parent=brand, depth=1,
                           tree_path="/100/101/", name="Shop")
    for day, synced, need, flagged, five, one in HISTORY:
        business_day(shop, day, locations=1, reports=1, total_sites=20, synced=synced,
                     need_updates=need, needs_action=flagged, reviews=five + one + 1,
                     rating_1=one, rating_2=0, rating_3=0, rating_4=0, rating_5=five)
    return shop


def series(shop, interval, start=D(2026, 1, 1), end=TODAY):
    with tenant_scope(shop.reseller):
        subject = history_subject(tenant=shop.reseller, membership=None, business=shop)
        points = history_series(days=history_days(tenant=shop.reseller, subject=subject),
                                start=start, end=end, interval=interval)
    return [(p.period, p.day, p.row.synced_percent) for p in points]


def test_a_series_by_day_week_and_month_takes_the_last_day_of_each_period(shop):
    assert series(shop, "day", start=D(2026, 4, 30), end=D(2026, 6, 1)) == [
        (D(2026, 4, 30), D(2026, 4, 30), 60.0), (D(2026, 5, 31), D(2026, 5, 31), 70.0),
        (D(2026, 6, 1), D(2026, 6, 1), 75.0)]
    assert series(shop, "week") == [
        (D(2026, 3, 30), D(2026, 3, 31), 50.0),  # Monday 30 March: its week ends on the 31st
        (D(2026, 4, 27), D(2026, 4, 30), 60.0),
        (D(2026, 5, 25), D(2026, 5, 31), 70.0),
        (D(2026, 6, 1), D(2026, 6, 1), 75.0),
        (D(2026, 6, 8), D(2026, 6, 10), 90.0)]
    assert series(shop, "month") == [
        (D(2026, 3, 1), D(2026, 3, 31), 50.0), (D(2026, 4, 1), D(2026, 4, 30), 60.0),
        (D(2026, 5, 1), D(2026, 5, 31), 70.0), (D(2026, 6, 1), D(2026, 6, 10), 90.0)]
    assert series(shop, "month", start=D(2026, 7, 1), end=D(2026, 12, 31)) == []


def changes_of(comparison) -> dict:
    return {change.figure.key: (change.now, change.before, change.delta_text, change.verdict)
            for change in comparison.changes}


def test_this_month_and_this_quarter_against_the_ones_before(shop):
    with tenant_scope(shop.reseller):
        subject = history_subject(tenant=shop.reseller, membership=None, business=shop)
        month, quarter = history_comparisons(
            days=history_days(tenant=shop.reseller, subject=subject), today=TODAY)
    assert (month.latest_day, month.before_day) == (D(2026, 6, 10), D(2026, 5, 31))
    assert changes_of(month) == {
        "synced_percent": (90.0, 70.0, "up 20 points", "better"),
        # 12 five-star and 3 one-star: (60 + 3) / 15 = 4.20; 9 and 3: 48 / 12 = 4.00.
        "average_rating": (Decimal("4.20"), Decimal("4.00"), "up 0.20", "better"),
        "reviews": (16, 13, "up 3", "better"),
        "sites_needing_action": (1, 3, "down 2", "better"),
        "locations_needing_action": (0, 1, "down 1", "better"),
    }
    assert (quarter.latest_day, quarter.before_day) == (D(2026, 6, 10), D(2026, 3, 31))
    assert changes_of(quarter)["synced_percent"] == (90.0, 50.0, "up 40 points", "better")
    assert changes_of(quarter)["sites_needing_action"] == (1, 5, "down 4", "better")

    # Early in July, nothing of July is recorded yet: nothing to say about this month.
    with tenant_scope(shop.reseller):
        month, quarter = history_comparisons(
            days=history_days(tenant=shop.reseller, subject=subject), today=D(2026, 7, 2))
    assert not month.comparable and month.latest_day is None
    assert not quarter.comparable


def test_a_worse_figure_says_so_in_words(shop):
    business_day(shop, D(2026, 6, 11), locations=1, reports=1, total_sites=20, synced=4,
                 need_updates=9, needs_action=1)
    with tenant_scope(shop.reseller):
        subject = history_subject(tenant=shop.reseller, membership=None, business=shop)
        month, _ = history_comparisons(
            days=history_days(tenant=shop.reseller, subject=subject), today=TODAY)
    found = changes_of(month)
    assert found["synced_percent"] == (20.0, 70.0, "down 50 points", "worse")
    assert found["sites_needing_action"] == (9, 3, "up 6", "worse")
    assert found["reviews"][2:] == ("", "")  # no counts that day: nothing compared


def test_a_member_sees_the_account_or_their_own_subtree(shop):
    reseller = shop.reseller
    account_day(reseller, D(2026, 6, 10), locations=40, total_sites=800, synced=400)
    business_day(shop.parent, D(2026, 6, 10), locations=1, total_sites=20, synced=18)
    everyone = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    client = MembershipFactory(reseller=reseller, role=Role.VIEWER, limited_to=shop.parent)
    with tenant_scope(reseller):
        whole = trends_build(tenant=reseller, membership=everyone, end=TODAY)
        part = trends_build(tenant=reseller, membership=client, end=TODAY)
        asked = trends_build(tenant=reseller, membership=client, business=shop, end=TODAY,
                             interval="month")
    assert (whole.subject.kind, [p.row.synced for p in whole.points]) == ("account", [400])
    assert (part.subject.kind, part.subject.name) == ("subtree", "Brand")
    assert [p.row.synced for p in part.points] == [18]
    assert asked.subject.kind == "business"
    assert [p.row.synced for p in asked.points] == [10, 12, 14, 18]


def test_the_charts_say_the_figures_and_say_when_there_is_nothing(shop):
    with tenant_scope(shop.reseller):
        trends = trends_build(tenant=shop.reseller, membership=None, business=shop,
                              interval="month", start=D(2026, 1, 1), end=TODAY)
        empty = trends_build(tenant=shop.reseller, membership=None, end=TODAY)
    charts = {chart.key: chart for chart in trends.charts}
    assert set(charts) == {"reviews", "average_rating", "synced_percent",
                           "sites_needing_action"}
    synced = str(charts["synced_percent"].svg)
    assert 'role="img"' in synced and "<title>Listing sites synced</title>" in synced
    assert ("Listing sites synced: 50% (Mar 2026) to 90% (Jun 2026); lowest 50%, "
            "highest 90%") in synced
    assert synced.count("<circle") == 4  # January and February have no day: a gap, no zero
    assert str(charts["reviews"].svg).count("<rect") == 4
    assert not empty.has_history
    assert all(chart.svg is None and chart.empty for chart in empty.charts)

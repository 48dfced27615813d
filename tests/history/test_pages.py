"""The trends where people look: the dashboard's block, a business's card and page, the
account's trends page; a limited member sees their subtree's."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import Business, Role
from tests.factories import BusinessFactory
from tests.history.conftest import account_day, business_day

pytestmark = pytest.mark.django_db


def end_of_last_month() -> dt.date:
    return timezone.localdate().replace(day=1) - dt.timedelta(days=1)


@pytest.fixture
def known(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    brand = BusinessFactory(reseller=reseller, remote_id=100, tree_path="/100/", depth=0,
                            type=Business.Type.ENTERPRISE_LOCATION, name="Brand")
    shop = BusinessFactory(reseller=reseller, remote_id=101, parent=brand, depth=1,
                           tree_path="/100/101/", name="Shop")
    for day, synced, need in ((end_of_last_month(), 64, 9), (timezone.localdate(), 91, 2)):
        account_day(reseller, day, locations=10, reports=10, total_sites=100, synced=synced,
                    need_updates=need, needs_action=need, survey_responses=3, nps_promoters=2,
                    nps_passives=1, nps_detractors=0)
        business_day(brand, day, locations=1, reports=1, total_sites=10, synced=synced // 10)
        business_day(shop, day, locations=1, reports=1, total_sites=10, synced=synced // 10)
    return client, membership, brand, shop


def test_the_dashboard_shows_the_trends_in_words_and_charts(known):
    client, membership, _brand, _shop = known
    page = client.get(f"/t/{membership.reseller.slug}/").content.decode()
    assert 'id="h-trends"' in page and "This month against last" in page
    assert "Listing sites synced" in page
    assert "91%" in page and "up 27 points, better" in page and "from 64%" in page
    assert "down 7, better" in page  # sites needing action fell
    assert page.count('class="chart trend-chart"') == 2  # synced share, sites needing action
    assert "No review counts recorded in this period." in page
    assert "Net Promoter Score" not in page  # the account's own charts are on its page
    assert f"/t/{membership.reseller.slug}/trends/" in page


def test_a_dashboard_without_history_says_so(member_client):
    client, membership = member_client(Role.VIEWER)
    page = client.get(f"/t/{membership.reseller.slug}/").content.decode()
    assert "No history yet." in page


def test_a_limited_member_sees_their_subtrees_trends(known, member_client, client):
    _client, membership, brand, _shop = known
    limited, member = member_client(Role.VIEWER, reseller=membership.reseller,
                                    limited_to=brand)
    page = limited.get(f"/t/{member.reseller.slug}/").content.decode()
    assert "Trends of Brand" in page
    assert "up 30 points, better" in page  # the brand's 6 of 10 to 9 of 10 ...
    assert "up 27 points" not in page  # ... not the account's
    trends = limited.get(f"/t/{member.reseller.slug}/trends/").content.decode()
    assert "Trends of Brand" in trends and "Net Promoter Score" not in trends


def test_the_accounts_trends_page_adds_the_accounts_own_figures(known):
    client, membership, _brand, _shop = known
    slug = membership.reseller.slug
    page = client.get(f"/t/{slug}/trends/?interval=month").content.decode()
    assert "Net Promoter Score" in page and "Month by month, two years" in page
    assert page.count('class="chart trend-chart"') == 3  # synced, sites, NPS
    assert client.get(f"/t/{slug}/trends/?interval=nonsense").status_code == 200


def test_a_business_shows_its_trends_card_and_page(known, member_client):
    client, membership, brand, shop = known
    slug = membership.reseller.slug
    detail = client.get(f"/t/{slug}/businesses/{shop.remote_id}/").content.decode()
    assert f'data-trends-src="/t/{slug}/businesses/{shop.remote_id}/trends/?fragment=1"' in detail
    assert "history/trends.js" in detail
    card = client.get(f"/t/{slug}/businesses/{shop.remote_id}/trends/?fragment=1")
    text = card.content.decode()
    assert card.status_code == 200 and "<html" not in text
    assert "This month against last" in text and "up 30 points, better" in text
    page = client.get(f"/t/{slug}/businesses/{brand.remote_id}/trends/").content.decode()
    assert "The sums of the locations under Brand" in page and "<html" in page

    limited, _member = member_client(Role.VIEWER, reseller=membership.reseller,
                                     limited_to=shop)
    assert limited.get(f"/t/{slug}/businesses/{shop.remote_id}/trends/").status_code == 200
    assert limited.get(f"/t/{slug}/businesses/{brand.remote_id}/trends/").status_code == 404

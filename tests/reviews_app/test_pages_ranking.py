"""Competitive ranking of the whole account (mirrored by the sync): a chart against its
competitors, and a table. The ranking of one enterprise, asked of the sandbox, is in
test_ranking_enterprises.py."""

import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role
from reviews_app.models import CompetitiveRanking
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


def url(reseller, query=""):
    return reverse("competitive_ranking", args=[reseller.slug]) + query


def competitor(name, count, rating, positive, neutral, negative):
    total = positive + neutral + negative
    return {"name": name, "count": count, "rating": rating, "positiveCount": positive,
            "neutralCount": neutral, "negativeCount": negative,
            "positivePercent": round(100 * positive / total),
            "neutralPercent": round(100 * neutral / total),
            "negativePercent": round(100 * negative / total)}


def add_ranking(reseller, competitors=None):
    competitors = competitors if competitors is not None else [
        competitor("Bean Co", 120, 4.6, 30, 10, 10), competitor("Roast Ltd", 40, 3.9, 5, 5, 10)]
    return CompetitiveRanking.unscoped.create(
        reseller=reseller, remote_id=reseller.account_number, name="Harbor Group", count=80,
        positive_count=20, neutral_count=10, negative_count=10, rating=Decimal("4.10"),
        competitors=competitors,
        raw={"name": "Harbor Group", "positivePercent": 50, "neutralPercent": 25,
             "negativePercent": 25})


def chart_bars(page):
    """(label, value, colour) of each bar, in order."""
    return re.findall(r'class="chart-label">([^<]*)</text><rect [^>]*fill="([^"]+)"></rect>'
                      r'<text [^>]*class="chart-value">([^<]*)</text>', page)


@pytest.fixture
def viewer(member_client):
    client, membership = member_client(Role.VIEWER, reseller=ResellerFactory(name="Demo Agency"))
    return client, membership.reseller


def test_the_account_is_charted_against_its_competitors_and_highlighted(viewer):
    client, reseller = viewer
    add_ranking(reseller)
    page = client.get(url(reseller)).content.decode()
    bars = chart_bars(page)
    assert [(label, value) for label, _, value in bars] == [
        ("Bean Co", "4.6"), ("Demo Agency", "4.1"), ("Roast Ltd", "3.9")]
    colours = {label: colour for label, colour, _ in bars}
    assert colours["Demo Agency"] != colours["Bean Co"] == colours["Roast Ltd"]
    assert 'class="highlight"' in page


def test_the_account_is_named_as_the_reseller_not_as_the_providers_record(viewer):
    """The provider names the account by its own record ("Harbor Group" here, "Northwind
    Digital" in the demo); people know it as the reseller of this portal."""
    client, reseller = viewer
    add_ranking(reseller)
    page = client.get(url(reseller)).content.decode()
    assert "Harbor Group" not in page and "(you)" not in page
    assert "<strong>Demo Agency</strong>" in page and "your account" in page
    assert "Every brand of the account together" in page


@pytest.mark.parametrize("metric,expected", [
    ("positive", [("Bean Co", "60"), ("Demo Agency", "50"), ("Roast Ltd", "25")]),
    ("count", [("Bean Co", "120"), ("Demo Agency", "80"), ("Roast Ltd", "40")]),
    ("bogus", [("Bean Co", "4.6"), ("Demo Agency", "4.1"), ("Roast Ltd", "3.9")]),
])
def test_the_chart_can_compare_positive_share_or_review_count(viewer, metric, expected):
    client, reseller = viewer
    add_ranking(reseller)
    page = client.get(url(reseller, f"?metric={metric}")).content.decode()
    assert [(label, value) for label, _, value in chart_bars(page)] == expected


def test_the_table_lists_counts_and_shares(viewer):
    client, reseller = viewer
    add_ranking(reseller)
    rows = client.get(url(reseller)).context["rows"]
    account = next(row for row in rows if row.is_ranked)
    assert (account.count, account.positive, account.negative, account.positive_percent) == (
        80, 20, 10, 50)
    roast = next(row for row in rows if row.name == "Roast Ltd")
    assert (roast.count, roast.negative, roast.negative_percent) == (40, 10, 50)


def test_without_a_ranking_the_page_says_so(viewer):
    client, reseller = viewer
    add_ranking(ResellerFactory())
    page = client.get(url(reseller)).content.decode()
    assert "No ranking of the whole account yet" in page and "<svg" not in page


def test_no_competitors_still_charts_the_account(viewer):
    client, reseller = viewer
    add_ranking(reseller, competitors=[])
    page = client.get(url(reseller)).content.decode()
    assert [label for label, _, _ in chart_bars(page)] == ["Demo Agency"]
    assert "the provider has no competitor of Demo Agency" in page


def test_another_tenants_member_gets_404(member_client):
    client, _ = member_client(Role.OWNER)
    assert client.get(url(ResellerFactory())).status_code == 404


def test_a_viewer_cannot_post_and_a_subtree_member_is_refused(viewer, member_client):
    client, reseller = viewer
    assert client.post(url(reseller)).status_code == 403
    limited, _ = member_client(Role.VIEWER, reseller=reseller,
                               limited_to=BusinessFactory(reseller=reseller))
    assert limited.get(url(reseller)).status_code == 403


def test_the_query_count_does_not_grow_with_competitors(viewer):
    client, reseller = viewer
    ranking = add_ranking(reseller)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(reseller)).status_code == 200
        return len(queries)

    few = count()
    ranking.competitors = [competitor(f"Rival {i}", i + 1, 3.5, 3, 2, 1) for i in range(40)]
    ranking.save()
    assert count() == few == 7  # with the bell's unread count

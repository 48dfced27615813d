"""Competitor review metrics: filters, pagination and a whitelisted sort over the mirror."""

import itertools
import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role
from reviews_app.models import CompetitorMetric
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(1)


def url(reseller, query=""):
    return reverse("competitor_metrics", args=[reseller.slug]) + query


def add_metric(reseller, brand="Bean Co", location="Bean Co Main St", source="profile",
               rating="4.20", reviews=10, **extra):
    return CompetitorMetric.unscoped.create(
        reseller=reseller, remote_id=f"metric-{next(_ids)}", competitor_brand=brand,
        competitor_location=location, source=source, overall_rating=Decimal(rating),
        review_count=reviews,
        business_locations=[{"businessId": 1, "name": "Harbor Cafe", "businessNumber": 1}],
        **extra)


@pytest.fixture
def viewer(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    add_metric(reseller, "Bean Co", "Bean Co Main St", "profile", "4.20", 10)
    add_metric(reseller, "Bean Co", "Bean Co Harbor", "maps", "3.10", 40)
    add_metric(reseller, "Roast Ltd", "Roast Ltd Station", "profile", "4.90", 25)
    add_metric(reseller, "Gone Brand", "Gone", "profile", "1.00", 1,
               removed_at="2026-01-01T00:00Z")
    add_metric(ResellerFactory(), "Their Brand", "Elsewhere", "profile", "2.00", 2)
    return client, reseller


def rows(response):
    return [(m.competitor_brand, m.competitor_location) for m in response.context["page_obj"]]


def test_a_member_sees_the_accounts_live_metrics(viewer):
    client, reseller = viewer
    response = client.get(url(reseller))
    assert response.status_code == 200
    assert rows(response) == [("Bean Co", "Bean Co Harbor"), ("Bean Co", "Bean Co Main St"),
                              ("Roast Ltd", "Roast Ltd Station")]
    page = response.content.decode()
    assert "Harbor Cafe" in page and "Gone Brand" not in page and "Their Brand" not in page


@pytest.mark.parametrize("query,expected", [
    ("?brand=Roast+Ltd", [("Roast Ltd", "Roast Ltd Station")]),
    ("?source=maps", [("Bean Co", "Bean Co Harbor")]),
    ("?q=harbor", [("Bean Co", "Bean Co Harbor")]),
    ("?q=roast&source=profile", [("Roast Ltd", "Roast Ltd Station")]),
    ("?brand=Bean+Co&source=maps&q=main", []),
])
def test_filters_by_brand_source_and_competitor(viewer, query, expected):
    client, reseller = viewer
    assert rows(client.get(url(reseller, query))) == expected


@pytest.mark.parametrize("sort,first", [
    ("brand", "Bean Co Harbor"), ("-brand", "Roast Ltd Station"),
    ("-rating", "Roast Ltd Station"), ("rating", "Bean Co Harbor"),
    ("-reviews", "Bean Co Harbor"), ("reviews", "Bean Co Main St"),
])
def test_sort_orders(viewer, sort, first):
    client, reseller = viewer
    assert rows(client.get(url(reseller, f"?sort={sort}")))[0][1] == first


def test_an_unknown_sort_or_brand_is_refused_on_its_field_not_passed_to_the_database(viewer):
    client, reseller = viewer
    response = client.get(url(reseller, "?sort=reseller_id&brand=Their+Brand"))
    assert response.status_code == 200
    form = response.context["filters"]
    assert "sort" in form.errors and "brand" in form.errors
    assert len(rows(response)) == 3  # neither applied


def test_filter_choices_come_from_the_accounts_live_rows(viewer):
    client, reseller = viewer
    form = client.get(url(reseller)).context["filters"]
    assert [v for v, _ in form.fields["brand"].choices] == ["", "Bean Co", "Roast Ltd"]
    assert [v for v, _ in form.fields["source"].choices] == ["", "maps", "profile"]


def test_pagination_keeps_the_filters(viewer):
    client, reseller = viewer
    for index in range(30):
        add_metric(reseller, "Roast Ltd", f"Roast Ltd {index:02d}")
    response = client.get(url(reseller, "?brand=Roast+Ltd&sort=brand"))
    page = response.content.decode()
    assert len(response.context["page_obj"]) == 25 and "Page 1 of 2" in page
    assert "?brand=Roast+Ltd&amp;sort=brand&amp;page=2" in page
    assert len(client.get(url(reseller, "?brand=Roast+Ltd&sort=brand&page=2"))
               .context["page_obj"]) == 6


def test_another_tenants_member_gets_404(member_client):
    client, _ = member_client(Role.OWNER)
    assert client.get(url(ResellerFactory())).status_code == 404


def test_a_viewer_cannot_post_and_a_subtree_member_is_refused(viewer, member_client):
    client, reseller = viewer
    assert client.post(url(reseller)).status_code == 403
    limited, _ = member_client(Role.VIEWER, reseller=reseller,
                               limited_to=BusinessFactory(reseller=reseller))
    assert limited.get(url(reseller)).status_code == 403


def test_the_query_count_does_not_grow_with_rows(viewer):
    client, reseller = viewer

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(reseller, "?sort=-rating")).status_code == 200
        return len(queries)

    few = count()
    for index in range(40):
        add_metric(reseller, f"Brand {index}", f"Place {index}", source=f"src{index % 4}")
    assert count() == few == 9  # with the bell's unread count


def test_sources_read_in_words_in_the_filter_and_the_table(viewer):
    """The same words as the reviews tab ("Business profile", "Maps"), never the aliases; the
    provider's own vendor names read as the source they stand for."""
    client, reseller = viewer
    add_metric(reseller, "Crust Co", "Crust Co Pier", "google", "4.00", 3)
    add_metric(reseller, "Crust Co", "Crust Co Mall", "citysearch", "3.00", 2)
    response = client.get(url(reseller))
    page = response.content.decode()
    choices = dict(response.context["filters"].fields["source"].choices)
    assert choices == {"": "All sources", "citysearch": "Citysearch",
                       "google": "Business profile", "maps": "Maps",
                       "profile": "Business profile"}
    cells = [cell.strip() for cell in re.findall(r"</td><td>([^<]*)</td>\s*<td class=\"num\"",
                                                 page)]
    assert sorted(cells) == ["Business profile", "Business profile", "Business profile",
                             "Citysearch", "Maps"]
    for alias in ("profile", "maps", "google", "citysearch"):
        assert f">{alias}<" not in page
    # Filtering still goes by the alias.
    response = client.get(url(reseller, "?source=maps"))
    assert rows(response) == [("Bean Co", "Bean Co Harbor")]

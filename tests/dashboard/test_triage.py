"""Needs action as a triage (issue 15): a location with 1 of 22 sites to update neither counts
nor ranks like one never published, on the dashboard, the businesses list, its export and API,
and a location's listing status page."""

from __future__ import annotations

import csv
import io
import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Business, Role
from accounts.triage import TRIAGE_PARAMS, Triage, triage_of, triage_q
from listings.models import ListingStatusReport
from portal.tenancy import tenant_scope
from tests.accounts.ui_factories import StatusReportFactory, child
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


def location(reseller, name, *, status="Published", need=0, total=22, errors=(), **fields):
    """A location with a status report flagged the way the mirror flags it."""
    business = BusinessFactory(reseller=reseller, name=name, **fields)
    StatusReportFactory(business=business, location_status=status, total_sites=total,
                        need_updates_count=need, synced_count=total - need,
                        submitted_count=0, opted_out_count=0, not_connected_count=0,
                        errors=list(errors), needs_action=need > 0 or bool(errors))
    return business


@pytest.fixture
def account(member_client):
    """One location of each kind of work, named by it. Sorted by sites to update alone (the
    old order) the mostly-broken published one came before the one never published."""
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    shops = {
        "few": location(reseller, "Few Sites", need=1),
        "never": location(reseller, "Never Published", status="Scan State", need=15,
                          errors=["Listings have not been published for this location yet"]),
        "most": location(reseller, "Most Sites", need=20),
        "many": location(reseller, "Many Sites", need=6),
        "inactive": location(reseller, "Inactive Shop", status="Disabled", need=0,
                             errors=["The location is inactive"]),
        "fine": location(reseller, "All Synced", need=0),
    }
    return client, membership, shops


def dashboard(client, membership):
    response = client.get(reverse("tenant_home", args=[membership.reseller.slug]))
    assert response.status_code == 200
    return response


# -- the rules --------------------------------------------------------------------------------


def test_the_sql_and_python_rules_put_every_report_in_the_same_single_tier():
    reseller = ResellerFactory()
    grid = itertools.product(["Published", "Scan State", "Disabled", ""], [0, 1, 5, 6, 22],
                             [(), ("An error",)])
    for n, (status, need, errors) in enumerate(grid):
        location(reseller, f"Shop {n}", status=status, need=need, errors=errors)
    with tenant_scope(reseller):
        reports = list(ListingStatusReport.objects.all())
        for tier in Triage:
            in_sql = set(ListingStatusReport.objects.filter(triage_q(tier))
                         .values_list("pk", flat=True))
            assert in_sql == {r.pk for r in reports if triage_of(r) == tier}, tier.label


@pytest.mark.parametrize(("status", "need", "errors", "tier"), [
    ("Scan State", 15, ["Not published yet"], Triage.NOT_PUBLISHED),
    ("Published", 6, [], Triage.MANY_SITES),       # 6 of 22: a quarter or more
    ("Published", 5, [], Triage.FEW_SITES),        # 5 of 22: fewer than a quarter
    ("Published", 1, [], Triage.FEW_SITES),
    ("Published", 0, ["An error"], Triage.MANY_SITES),
    ("Disabled", 0, ["The location is inactive"], Triage.INACTIVE),
    ("Published", 0, [], Triage.NONE),
])
def test_each_kind_of_report_gets_its_tier(status, need, errors, tier):
    reseller = ResellerFactory()
    business = location(reseller, "Shop", status=status, need=need, errors=errors)
    with tenant_scope(reseller):
        assert triage_of(ListingStatusReport.objects.get(business=business)) == tier


# -- the dashboard ----------------------------------------------------------------------------


def test_the_dashboard_ranks_locations_by_the_work_they_ask(account):
    client, membership, shops = account
    d = dashboard(client, membership).context["dashboard"]
    assert [b.name for b in d.needs_action] == [
        "Never Published", "Most Sites", "Many Sites", "Few Sites", "Inactive Shop"]
    assert d.work == {"not_published": 1, "many_sites": 2, "few_sites": 1, "inactive": 1}
    assert d.health["needs_action"] == 5


def test_the_dashboard_figures_say_how_much_is_to_do(account):
    client, membership, shops = account
    page = dashboard(client, membership).content.decode()
    slug = membership.reseller.slug
    # The tiles: the locations never published, then those with many and a few sites to do.
    assert "location not published" in page
    assert "with many sites to fix" in page
    assert "1 with a few sites to update" in page and "1 inactive" in page
    assert f"/t/{slug}/businesses/?triage=not_published&amp;sort=-triage" in page
    assert "?triage=few_sites&amp;sort=-triage" in page
    # Each row says how much: "1 of 22 sites needs action", never published first.
    assert "1 of 22 sites needs action" in page and "20 of 22 sites need action" in page
    assert page.index("Never Published") < page.index("Few Sites")
    assert "locations need action" not in page  # the old undivided figure
    assert "needs_action=true&amp;sort=-triage" not in page  # all 5 rows are shown


def test_two_locations_of_one_name_are_told_apart(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    for street, number in (("12 Camelback Rd", 5551), ("900 Van Buren St", 5552)):
        location(reseller, "FlexFit Gyms - Phoenix", need=3, remote_id=number,
                 address1=street, city="Phoenix", state="AZ", zip="85004",
                 country_code="US", country_name="United States")
    page = dashboard(client, membership).content.decode()
    assert "Business number 5551 · 12 Camelback Rd, Phoenix, AZ 85004" in page
    assert "Business number 5552 · 900 Van Buren St, Phoenix, AZ 85004" in page
    assert "United States" not in page.split('id="h-action"')[1].split("</section>")[0]


def test_a_subtree_member_counts_the_work_of_their_subtree_only(member_client):
    reseller = ResellerFactory()
    brand = child(reseller, None, 700, name="Brand", type=Business.Type.ENTERPRISE_LOCATION)
    inside = child(reseller, brand, 701, name="Inside")
    StatusReportFactory(business=inside, location_status="Scan State", need_updates_count=4,
                        errors=["Not published"], needs_action=True)
    location(reseller, "Outside", status="Scan State", need=9, errors=["Not published"])
    location(reseller, "Outside Few", need=1)
    client, membership = member_client(Role.VIEWER, reseller=reseller, limited_to=brand)
    d = dashboard(client, membership).context["dashboard"]
    assert d.work == {"not_published": 1, "many_sites": 0, "few_sites": 0, "inactive": 0}
    assert [b.name for b in d.needs_action] == ["Inside"]


def test_the_queries_depend_on_the_tiers_shown_never_on_the_rows(member_client):
    """One aggregate counts every tier; then a query per tier, most urgent first, only while
    the ten rows shown are not all found: at most four, whatever the number of locations."""
    client, membership = member_client(Role.VIEWER)

    def queries_for(names):
        for name in names:
            location(membership.reseller, name, status="Scan State", need=12,
                     errors=["Not published"])
        with CaptureQueriesContext(connection) as queries:
            d = dashboard(client, membership).context["dashboard"]
        return len(queries), d

    few_rows, _ = queries_for([f"Shop {n}" for n in range(12)])
    many_rows, d = queries_for([f"More {n}" for n in range(60)])
    assert few_rows == many_rows and len(d.needs_action) == 10

    location(membership.reseller, "A Few", need=1)
    location(membership.reseller, "Many", need=9)
    location(membership.reseller, "Inactive", status="Disabled", errors=["Inactive"])
    every_tier, _ = queries_for([])
    assert every_tier == many_rows  # the first tier still fills the ten rows

    reseller = membership.reseller
    ListingStatusReport.unscoped.filter(reseller=reseller, location_status="Scan State").delete()
    all_four, d = queries_for([])
    assert all_four == many_rows + 2  # many, few, inactive: each holds fewer than ten
    assert [b.name for b in d.needs_action] == ["Many", "A Few", "Inactive"]


# -- the businesses list, its export and the API -------------------------------------------------


def list_page(client, membership, **params):
    response = client.get(reverse("business_list", args=[membership.reseller.slug]), params)
    assert response.status_code == 200
    return response


@pytest.mark.parametrize(("param", "names"), [
    ("not_published", ["Never Published"]),
    ("many_sites", ["Many Sites", "Most Sites"]),
    ("few_sites", ["Few Sites"]),
    ("inactive", ["Inactive Shop"]),
])
def test_the_list_filters_on_the_work(account, param, names):
    client, membership, shops = account
    response = list_page(client, membership, triage=param)
    assert [b.name for b in response.context["businesses"]] == names


def test_the_list_sorts_most_work_first_and_says_how_much_per_row(account):
    client, membership, shops = account
    response = list_page(client, membership, sort="-triage")
    assert [b.name for b in response.context["businesses"]] == [
        "Never Published", "Most Sites", "Many Sites", "Few Sites", "Inactive Shop",
        "All Synced"]
    page = response.content.decode()
    assert ">Work to do</a></th>" in page
    assert '<span class="badge bad">Not published</span><span class="alias">15 of 22 sites need ' \
           'action</span>' in page
    assert '<span class="badge info">A few sites to update</span><span class="alias">1 of 22 ' \
           'sites needs action</span>' in page
    assert "Nothing to do" in page
    ascending = list_page(client, membership, sort="triage").context["businesses"]
    assert [b.name for b in ascending][0] == "All Synced"


def test_an_unknown_kind_of_work_is_refused_on_the_form(account):
    client, membership, shops = account
    response = list_page(client, membership, triage="urgent")
    assert "triage" in response.context["form"].errors


def test_the_export_and_the_api_take_the_same_filter_and_sort(account, api_member):
    client, membership, shops = account
    url = reverse("business_export", args=[membership.reseller.slug])
    body = b"".join(client.get(url, {"triage": "many_sites", "sort": "-triage"})
                    .streaming_content).decode()
    assert [row["name"] for row in csv.DictReader(io.StringIO(body))] == [
        "Most Sites", "Many Sites"]

    api, api_membership = api_member(Role.VIEWER, reseller=membership.reseller)
    answer = api.get(reverse("api_business_list", args=[membership.reseller.slug]),
                     {"sort": "-triage", "needs_action": "true"})
    assert answer.status_code == 200
    assert [b["name"] for b in answer.json()["results"]] == [
        "Never Published", "Most Sites", "Many Sites", "Few Sites", "Inactive Shop"]
    assert set(TRIAGE_PARAMS) == {"not_published", "many_sites", "few_sites", "inactive"}

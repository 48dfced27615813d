"""The businesses list, its filters, sorting, pagination, CSV export and the hierarchy tree."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import AuditEvent, Business, Role
from tests.accounts.ui_factories import StatusReportFactory, make_tree
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db



def names(response):
    return [b.name for b in response.context["businesses"]]


def list_url(membership, **params):
    from urllib.parse import urlencode

    url = reverse("business_list", args=[membership.reseller.slug])
    return f"{url}?{urlencode(params)}" if params else url


def export(client, membership, **params):
    from urllib.parse import urlencode

    url = reverse("business_export", args=[membership.reseller.slug])
    response = client.get(f"{url}?{urlencode(params)}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body)))


@pytest.fixture
def tree_client(member_client):
    client, membership = member_client(Role.VIEWER)
    return client, membership, make_tree(membership.reseller)


# -- access ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["business_list", "business_export", "business_tree"])
def test_pages_answer_a_member_and_404_another_tenants_member(client, name):
    mine = MembershipFactory(role=Role.VIEWER)
    other = MembershipFactory()
    make_tree(mine.reseller)
    client.force_login(mine.user)
    assert client.get(reverse(name, args=[mine.reseller.slug])).status_code == 200
    client.force_login(other.user)
    assert client.get(reverse(name, args=[mine.reseller.slug])).status_code == 404


def test_anonymous_is_sent_to_login(client):
    reseller = ResellerFactory()
    response = client.get(reverse("business_list", args=[reseller.slug]))
    assert response.status_code == 302 and "/login" in response.url


def test_list_shows_current_businesses_sorted_by_name(tree_client):
    client, membership, tree = tree_client
    response = client.get(list_url(membership))
    assert response.status_code == 200
    assert names(response) == sorted(names(response))
    assert "Gone Diner" not in names(response)  # removed
    assert len(names(response)) == 7
    page = response.content.decode()
    assert reverse("business_detail", args=[membership.reseller.slug, tree.a.remote_id]) in page


def test_list_never_shows_another_tenants_businesses(tree_client):
    client, membership, tree = tree_client
    BusinessFactory(name="Their Secret Shop")
    response = client.get(list_url(membership, q="Secret"))
    assert names(response) == []
    assert "Their Secret Shop" not in response.content.decode()


# -- filters, search, sorting ------------------------------------------------------------------


@pytest.mark.parametrize(("params", "expected"), [
    ({"q": "burger"}, {"Burger Brand", "Burger Brand - Austin", "Burger Brand - Boston"}),
    ({"q": "LOC-B"}, {"Burger Brand - Boston"}),
    ({"q": "toronto"}, {"Corner Bakery"}),
    ({"q": "401"}, {"Pizza Place - Paris"}),
    ({"type": "Business"}, {"Burger Brand - Austin", "Burger Brand - Boston", "Corner Bakery",
                            "Pizza Place - Paris"}),
    ({"type": "Enterprise-Location"}, {"Burger Brand", "Pizza Place"}),
    ({"status": "demo"}, {"Burger Brand - Boston"}),
    ({"city": "paris"}, {"Pizza Place - Paris"}),
    ({"country": "CA"}, {"Corner Bakery"}),
    ({"listing_status": "Scan State"}, {"Burger Brand - Boston"}),
    ({"listing_status": "none", "type": "Business"}, {"Corner Bakery"}),
    ({"needs_action": "true"}, {"Burger Brand - Austin"}),
    ({"needs_action": "false", "type": "Business"},
     {"Burger Brand - Boston", "Corner Bakery", "Pizza Place - Paris"}),
    ({"within": "200"}, {"Burger Brand - Austin", "Burger Brand - Boston"}),
    ({"within": "100", "type": "Business"},
     {"Burger Brand - Austin", "Burger Brand - Boston", "Corner Bakery"}),
    ({"removed": "only"}, {"Gone Diner"}),
    ({"removed": "include", "city": "Austin"}, {"Burger Brand - Austin", "Gone Diner"}),
    ({"q": "burger", "status": "active", "type": "Business"}, {"Burger Brand - Austin"}),
])
def test_filters_narrow_the_list(tree_client, params, expected):
    client, membership, tree = tree_client
    response = client.get(list_url(membership, **params))
    assert response.status_code == 200
    assert set(names(response)) == expected


def test_within_a_business_of_another_tenant_finds_nothing(tree_client):
    client, membership, tree = tree_client
    theirs = BusinessFactory(remote_id=999_000, tree_path="/999000/", type="Reseller")
    BusinessFactory(reseller=theirs.reseller, tree_path="/999000/999001/")
    assert names(client.get(list_url(membership, within=theirs.remote_id))) == []


def test_invalid_filter_values_are_reported_not_crashing(tree_client):
    client, membership, tree = tree_client
    response = client.get(list_url(membership, status="nonsense", within="abc"))
    assert response.status_code == 200
    assert response.context["form"].errors
    assert "field-error" in response.content.decode()


@pytest.mark.parametrize(("sort", "expected"), [
    ("city", ["Burger Brand - Austin", "Burger Brand - Boston", "Pizza Place - Paris",
              "Corner Bakery"]),
    ("-city", ["Corner Bakery", "Pizza Place - Paris", "Burger Brand - Boston",
               "Burger Brand - Austin"]),
    ("synced", ["Burger Brand - Boston", "Burger Brand - Austin", "Pizza Place - Paris",
                "Corner Bakery"]),
    ("-synced", ["Pizza Place - Paris", "Burger Brand - Austin", "Burger Brand - Boston",
                 "Corner Bakery"]),
    ("-need_updates", ["Burger Brand - Austin", "Burger Brand - Boston",
                       "Pizza Place - Paris", "Corner Bakery"]),
    ("-id", ["Pizza Place - Paris", "Corner Bakery", "Burger Brand - Boston",
             "Burger Brand - Austin"]),
])
def test_sorting_by_whitelisted_columns(tree_client, sort, expected):
    client, membership, tree = tree_client
    response = client.get(list_url(membership, type="Business", sort=sort))
    assert names(response) == expected


def test_sorting_by_a_column_not_on_the_whitelist_is_refused(tree_client):
    client, membership, tree = tree_client
    response = client.get(list_url(membership, sort="reseller__api_key_encrypted"))
    assert response.status_code == 200
    assert "sort" in response.context["form"].errors
    assert names(response) == sorted(names(response))  # the default order


def test_sort_headers_link_to_the_reverse_order(tree_client):
    client, membership, tree = tree_client
    page = client.get(list_url(membership, sort="city")).content.decode()
    assert 'aria-sort="ascending"' in page
    assert "sort=-city" in page


def test_pagination_50_a_page(member_client):
    client, membership = member_client(Role.VIEWER)
    for n in range(53):
        BusinessFactory(reseller=membership.reseller, name=f"Shop {n:03d}")
    first = client.get(list_url(membership))
    assert len(names(first)) == 50 and first.context["page_obj"].paginator.count == 53
    second = client.get(list_url(membership, page=2))
    assert names(second) == ["Shop 050", "Shop 051", "Shop 052"]
    assert 'rel="next"' in first.content.decode()


@pytest.mark.parametrize(("term", "expected"), [
    ("BURGER BRAND - austin", {"Burger Brand - Austin"}),   # any case
    ("bakery", {"Corner Bakery"}),
    ("eston", {"Burger Brand - Boston"}),              # inside its city, Weston
    ("oc-a", {"Burger Brand - Austin"}),               # inside its alias, LOC-A
    ("bur%er", set()),                                 # wildcards are plain characters
    ("b_rger", set()),
])
def test_search_matches_inside_name_alias_or_city_in_any_case(tree_client, term, expected):
    client, membership, tree = tree_client
    Business.unscoped.filter(reseller=membership.reseller, name="Burger Brand - Boston").update(
        city="Weston")
    response = client.get(list_url(membership, q=term))
    assert set(names(response)) == expected


def test_search_does_not_match_across_name_and_city(tree_client):
    client, membership, tree = tree_client
    # "Corner Bakery" is in Toronto: each word matches somewhere, but the name's end and the
    # city's start are not one text.
    assert names(client.get(list_url(membership, q="bakery toronto"))) == ["Corner Bakery"]
    assert names(client.get(list_url(membership, q="bakerytoronto"))) == []


def test_search_text_follows_a_renamed_business(tree_client):
    client, membership, tree = tree_client
    Business.unscoped.filter(reseller=membership.reseller, name="Corner Bakery").update(
        name="Corner Patisserie")
    assert names(client.get(list_url(membership, q="patisserie"))) == ["Corner Patisserie"]
    assert names(client.get(list_url(membership, q="bakery"))) == []


def test_searched_pages_are_counted_with_the_page(member_client):
    client, membership = member_client(Role.VIEWER)
    for n in range(53):
        BusinessFactory(reseller=membership.reseller, name=f"Shop {n:03d}")
    BusinessFactory(reseller=membership.reseller, name="Other")
    first = client.get(list_url(membership, q="shop"))
    assert len(names(first)) == 50 and first.context["page_obj"].paginator.count == 53
    assert first.context["page_obj"].paginator.num_pages == 2
    second = client.get(list_url(membership, q="shop", page=2))
    assert names(second) == ["Shop 050", "Shop 051", "Shop 052"]
    assert second.context["page_obj"].paginator.count == 53
    # Past the end: the last page, as for any list; not a number: the first.
    assert names(client.get(list_url(membership, q="shop", page=9))) == names(second)
    assert names(client.get(list_url(membership, q="shop", page="x"))) == names(first)
    nothing = client.get(list_url(membership, q="nowhere"))
    assert nothing.context["page_obj"].paginator.count == 0
    assert "No business matches these filters." in nothing.content.decode()


def list_queries(client, membership, count, root=None, **params):
    """Grow the tenant to `count` listed locations (half with a report), then count the
    queries of one list page."""
    reseller = membership.reseller
    existing = Business.unscoped.filter(reseller=reseller, type="Business").count()
    for n in range(existing, count):
        under = {"parent": root, "tree_path": f"{root.tree_path}{n}/"} if root else {}
        business = BusinessFactory(reseller=reseller, name=f"Row {n:03d}",
                                   country_code=["US", "CA", "FR"][n % 3], **under)
        if n % 2:
            StatusReportFactory(business=business, needs_action=n % 4 == 1)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(list_url(membership, **params))
    assert response.status_code == 200
    assert len(names(response)) == min(count, 50)
    return len(queries)


@pytest.mark.parametrize("params", [{"type": "Business"},
                                    {"sort": "-synced", "q": "Row", "country": ""},
                                    {"within": "1", "type": "Business", "page": "1"}])
def test_list_query_count_does_not_grow_with_rows(member_client, params):
    client, membership = member_client(Role.VIEWER)
    root = BusinessFactory(reseller=membership.reseller, remote_id=1, tree_path="/1/",
                           type="Reseller", name="Root")
    few = list_queries(client, membership, 5, root=root, **params)
    many = list_queries(client, membership, 60, root=root, **params)
    assert few == many
    # Session, user, membership, filter choices, count, the page's ids, its rows, the
    # switcher, the bell's unread count (and the `within` lookups): docs/performance.md allows
    # at most 15.
    assert many <= 11


def test_filter_choices_are_the_current_types_and_countries_of_the_tenant(member_client):
    from django.utils import timezone

    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    BusinessFactory(reseller=reseller, type="Business", country_code="US")
    BusinessFactory(reseller=reseller, type="Business", country_code="CA")
    BusinessFactory(reseller=reseller, type="Enterprise-Location", country_code="")
    BusinessFactory(reseller=reseller, type="Custom-Region", country_code="NZ")
    BusinessFactory(reseller=reseller, type="Reseller", country_code="FR",
                    removed_at=timezone.now())
    BusinessFactory(type="Enterprise-Product", country_code="DE")  # another tenant's
    form = client.get(list_url(membership)).context["form"]
    assert [value for value, _ in form.fields["type"].widget.choices if value] == [
        "Business", "Custom-Region", "Enterprise-Location"]
    assert [value for value, _ in form.fields["country"].widget.choices if value] == [
        "CA", "NZ", "US"]


# -- subtree members ---------------------------------------------------------------------------


@pytest.fixture
def subtree_client(member_client):
    reseller = ResellerFactory()
    tree = make_tree(reseller)
    client, membership = member_client(Role.MANAGER, reseller=reseller, limited_to=tree.ent)
    return client, membership, tree


def test_subtree_member_lists_only_their_subtree(subtree_client):
    client, membership, tree = subtree_client
    response = client.get(list_url(membership))
    assert set(names(response)) == {"Burger Brand", "Burger Brand - Austin",
                                    "Burger Brand - Boston"}
    assert set(names(client.get(list_url(membership, q="Pizza")))) == set()
    assert names(client.get(list_url(membership, within=tree.sub.remote_id))) == []
    # The country drop-down offers only what they can see.
    assert "FR" not in dict(response.context["form"].fields["country"].widget.choices)


def test_subtree_member_exports_only_their_subtree(subtree_client):
    client, membership, tree = subtree_client
    rows = export(client, membership)
    assert {row["name"] for row in rows} == {"Burger Brand", "Burger Brand - Austin",
                                             "Burger Brand - Boston"}


def test_subtree_member_tree_starts_at_their_business(subtree_client):
    client, membership, tree = subtree_client
    response = client.get(reverse("business_tree", args=[membership.reseller.slug]))
    root = response.context["root"]
    assert root.remote_id == tree.ent.remote_id and root.locations == 2
    page = response.content.decode()
    assert "West Agency" not in page and "Pizza Place" not in page


# -- CSV export --------------------------------------------------------------------------------


def test_export_has_the_filtered_rows_and_their_status(tree_client):
    client, membership, tree = tree_client
    rows = export(client, membership, type="Business", sort="city")
    assert [row["name"] for row in rows] == ["Burger Brand - Austin", "Burger Brand - Boston",
                                             "Pizza Place - Paris", "Corner Bakery"]
    austin = rows[0]
    assert austin["business_number"] == "301"
    assert austin["listing_status"] == "Published"
    assert (austin["synced"], austin["need_updates"], austin["needs_action"]) == ("5", "3", "yes")
    assert austin["parent_number"] == "200"
    assert rows[3]["listing_status"] == ""  # no report
    assert AuditEvent.unscoped.filter(action="business.exported",
                                      reseller=membership.reseller).exists()


def test_export_follows_search_and_removed_filters(tree_client):
    client, membership, tree = tree_client
    assert [r["name"] for r in export(client, membership, q="pizza")] == [
        "Pizza Place", "Pizza Place - Paris"]
    assert [r["name"] for r in export(client, membership, removed="only")] == ["Gone Diner"]


def test_export_defuses_spreadsheet_formulas(member_client):
    client, membership = member_client(Role.VIEWER)
    BusinessFactory(reseller=membership.reseller, name="=HYPERLINK(\"http://evil\")")
    rows = export(client, membership)
    assert rows[0]["name"].startswith("'=")


def test_export_query_count_does_not_grow_with_rows(member_client):
    client, membership = member_client(Role.VIEWER)
    url = reverse("business_export", args=[membership.reseller.slug])

    def queries_for(count):
        for _ in range(count):
            StatusReportFactory(business=BusinessFactory(reseller=membership.reseller))
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
            body = b"".join(response.streaming_content)
        return len(queries), body.count(b"\n")

    few, lines_few = queries_for(3)
    many, lines_many = queries_for(40)
    assert (lines_few, lines_many) == (4, 44)
    assert few == many


# -- the hierarchy tree ------------------------------------------------------------------------


def test_tree_counts_locations_under_each_container(tree_client):
    client, membership, tree = tree_client
    response = client.get(reverse("business_tree", args=[membership.reseller.slug]))
    root = response.context["root"]
    assert root.name == membership.reseller.name
    assert root.locations == 4  # a, b, c, d; e is removed
    by_name = {child.name: child for child in root.children}
    assert set(by_name) == {"West Agency", "Pizza Place"}
    west = by_name["West Agency"]
    assert (west.locations, west.direct_locations, west.needs_action) == (3, 1, 1)
    assert [(c.name, c.locations) for c in west.children] == [("Burger Brand", 2)]
    page = response.content.decode()
    assert "<details" in page
    assert f"within={tree.ent.remote_id}" in page
    assert "Burger Brand - Austin" not in page  # locations are counted, not listed


def test_tree_escapes_what_the_provider_names(tree_client):
    client, membership, tree = tree_client
    Business.unscoped.filter(pk=tree.ent.pk).update(name='<script>alert("x")</script> & Co',
                                                    status="<b>odd</b>")
    page = client.get(reverse("business_tree", args=[membership.reseller.slug])).content.decode()
    assert "<script>alert" not in page and "<b>odd</b>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co" in page
    assert "&lt;b&gt;odd&lt;/b&gt;" in page


def test_tree_query_count_does_not_grow_with_locations(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    url = reverse("business_tree", args=[reseller.slug])
    enterprise = BusinessFactory(reseller=reseller, remote_id=10, tree_path="/10/",
                                 type="Enterprise-Location")

    def queries_for(count):
        for _ in range(count):
            business = BusinessFactory(reseller=reseller, parent=enterprise)
            Business.unscoped.filter(pk=business.pk).update(
                tree_path=f"/10/{business.remote_id}/", depth=1)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        return len(queries), response.context["root"].locations

    few, total_few = queries_for(3)
    many, total_many = queries_for(30)
    assert (total_few, total_many) == (3, 33)
    assert few == many


@pytest.mark.parametrize("params", [{"within": "99999999999999999999"}, {"within": "1.5"},
                                    {"q": "99999999999999999999"}, {"page": "999"},
                                    {"within": "-3"}])
def test_out_of_range_input_is_handled(tree_client, params):
    client, membership, tree = tree_client
    response = client.get(list_url(membership, **params))
    assert response.status_code == 200
    assert client.get(reverse("business_export", args=[membership.reseller.slug]),
                      params).status_code == 200

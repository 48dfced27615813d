"""Bulk changes, first step: the dry run over locations with accepted listing versions, through
the API (selection, counts, per-location diffs and rule messages, access, bad input)."""

import sqlite3

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent, Business, Role
from bulk.models import BulkChange, BulkChangeItem
from bulk.services import bulk_change_create
from listings.editor.document import UNKNOWN_FIELD, UNKNOWN_SECTION
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


def day(number, start, end):
    return {"day": number, "isOpen": 1, "workingHours": [{"startHour": start, "endHour": end}]}


NINE_TO_FIVE = [day(0, 9 * 3600, 17 * 3600)]
EIGHT_TO_SIX = [day(0, 8 * 3600, 18 * 3600)]


def listing(name, **sections):
    document = {"businessInfo": {"name": name, "phone": "(512) 555-0100",
                                 "location": {"address1": "1 Main St", "city": "Austin",
                                              "state": "TX", "zip": "78701",
                                              "countryCode": "US"}},
                "additionalInfo": {"businessStatus": "Open", "hoursOfOperations": NINE_TO_FIVE},
                "profileListing": {"primaryCategoryProfile": "Cafe",
                                   "additionalCategories": ["Bakery"]}}
    for section, fields in sections.items():
        document.setdefault(section, {}).update(fields)
    return document


def accept(business, document, number=1):
    return ListingVersion.unscoped.create(reseller=business.reseller, business=business,
                                          number=number, document=document,
                                          accepted_at=timezone.now())


@pytest.fixture
def brand():
    """An enterprise of three locations with accepted listings, another enterprise with one,
    and a location without any accepted version."""
    reseller = ResellerFactory()
    north = BusinessFactory(reseller=reseller, remote_id=500, name="North brand",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/500/")
    south = BusinessFactory(reseller=reseller, remote_id=600, name="South brand",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/600/")
    rows = {}
    for number, name, parent, city in ((501, "Alpha", north, "Austin"),
                                       (502, "Bravo", north, "Austin"),
                                       (503, "Charlie", north, "Dallas"),
                                       (601, "Delta", south, "Austin")):
        rows[number] = BusinessFactory(reseller=reseller, remote_id=number, name=name,
                                       parent=parent, depth=1, city=city,
                                       tree_path=f"{parent.tree_path}{number}/")
    accept(rows[501], listing("Alpha"))
    # An older accepted version and a newer one: the newer is what a change is measured with.
    accept(rows[502], listing("Bravo (old)"), number=1)
    accept(rows[502], listing("Bravo", additionalInfo={"hoursOfOperations": EIGHT_TO_SIX}),
           number=2)
    accept(rows[503], listing("Charlie"))
    accept(rows[601], listing("Delta"))
    rows[701] = BusinessFactory(reseller=reseller, remote_id=701, name="Echo", city="Austin",
                                phone="(512) 555-0199", address1="9 Oak St", zip="78702",
                                state="TX", tree_path="/701/")
    return reseller, north, south, rows


def url(reseller, name="api_bulk_change_list", *args):
    return reverse(name, args=[reseller.slug, *args])


def create(client, reseller, **body):
    body.setdefault("dry_run", True)
    return client.post(url(reseller), body, format="json")


def items(client, reseller, change_id):
    answer = client.get(url(reseller, "api_bulk_change_items", change_id), {"limit": 500})
    assert answer.status_code == 200, answer.json()
    return {item["business_number"]: item for item in answer.json()["results"]}


HOURS = {"additionalInfo": {"hoursOfOperations": EIGHT_TO_SIX}}


def test_hours_replaced_counts_and_diffs_exact(api_member, brand):
    reseller, north, _, rows = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = create(client, reseller, businesses={"node": 500}, set=HOURS, waves=[1, 2])
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["state"] == "dry_run_done"
    assert body["counts"] == {"selected": 3, "will_change": 2, "unchanged": 1, "invalid": 0}
    found = items(client, reseller, body["id"])
    assert list(found) == [501, 502, 503]  # the list's order: by name
    expected_diff = [{"path": "additionalInfo.hoursOfOperations", "label": "Opening hours",
                      "old": "Monday: 09:00–17:00", "new": "Monday: 08:00–18:00"}]
    not_sent = {"wave": None, "note": "", "listing_version": None, "rollback_state": ""}
    assert found[501] == {"business_number": 501, "state": "will_change",
                          "diff": expected_diff, "errors": [], **not_sent}
    assert found[503]["diff"] == expected_diff
    # Bravo's last accepted version (2) has these hours already.
    assert found[502] == {"business_number": 502, "state": "unchanged", "diff": [],
                          "errors": [], **not_sent}
    with tenant_scope(reseller):
        item = BulkChangeItem.objects.get(business_number=501)
        assert item.payload == {"businessInfo": {"name": "Alpha"}, **HOURS}
        assert item.base_number == 1
        assert BulkChangeItem.objects.get(business_number=502).base_number == 2
    detail = client.get(url(reseller, "api_bulk_change_detail", body["id"])).json()
    assert detail["counts"] == body["counts"] and detail["waves"] == [1, 2]
    assert detail["set"] == HOURS and detail["lists"] == "replace"


def test_nothing_is_sent_and_the_dry_run_is_audited(api_member, brand):
    reseller, *_ = brand
    client, membership = api_member(Role.MANAGER, reseller=reseller)
    answer = create(client, reseller, businesses={"node": 500}, set=HOURS)
    assert answer.status_code == 201
    assert not OutboxEntry.unscoped.filter(reseller=reseller).exists()
    assert ListingVersion.unscoped.filter(reseller=reseller).count() == 5
    event = AuditEvent.unscoped.get(reseller=reseller, action="bulk_change.dry_run")
    assert event.actor == membership.user
    assert event.summary["fields"] == ["additionalInfo.hoursOfOperations"]
    assert event.summary["will_change"] == 2


def test_a_description_set_and_a_location_without_accepted_version(api_member, brand):
    reseller, _, _, rows = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    text = "Fresh bread every morning."
    answer = create(client, reseller, businesses={"numbers": [701, 601]},
                    set={"businessInfo": {"mainBusinessDescription": text}})
    assert answer.status_code == 201, answer.json()
    found = items(client, reseller, answer.json()["id"])
    assert list(found) == [701, 601]  # the order given
    description = {"path": "businessInfo.mainBusinessDescription",
                   "label": "Business › Description", "old": "", "new": text}
    assert found[601]["diff"] == [description]
    # Without an accepted version the change is measured against what the child list told,
    # as the listing editor does; the body then carries every filled field.
    assert found[701]["diff"] == [description]
    with tenant_scope(reseller):
        item = BulkChangeItem.objects.get(business_number=701)
    assert item.base_number == 0
    assert item.payload["businessInfo"]["phone"] == "(512) 555-0199"
    assert item.payload["businessInfo"]["mainBusinessDescription"] == text


def test_categories_appended_keep_the_listings_own(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = create(client, reseller, businesses={"numbers": [501]}, lists="append",
                    set={"profileListing": {"additionalCategories": ["Coffee shop", "Bakery"]}})
    assert answer.status_code == 201, answer.json()
    item = items(client, reseller, answer.json()["id"])[501]
    assert item["state"] == "will_change"
    assert item["diff"] == [{"path": "profileListing.additionalCategories",
                             "label": "Business-profile platform › Additional categories",
                             "old": "Bakery", "new": "Bakery; Coffee shop"}]
    replaced = create(client, reseller, businesses={"numbers": [501]},
                      set={"profileListing": {"additionalCategories": ["Coffee shop"]}})
    item = items(client, reseller, replaced.json()["id"])[501]
    assert item["diff"][0]["new"] == "Coffee shop"


def test_invalid_rows_carry_the_editors_messages(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = create(client, reseller, businesses={"node": 500}, lists="append",
                    set={"profileListing": {"additionalCategories": ["Cafe"]},
                         "businessInfo": {"websiteUrl": "not a link"}})
    assert answer.status_code == 201, answer.json()
    assert answer.json()["counts"] == {"selected": 3, "will_change": 0, "unchanged": 0,
                                       "invalid": 3}
    item = items(client, reseller, answer.json()["id"])[501]
    assert item["state"] == "invalid"
    assert {"field": "businessInfo.websiteUrl",
            "message": "Enter a full http:// or https:// address with a real host name."} \
        in item["errors"]
    # A provider rule (2278) read across the location's own primary category.
    assert {"field": "profileListing.additionalCategories",
            "message": "The primary category Cafe cannot also be an additional category."} \
        in item["errors"]
    assert len(item["errors"]) == 2
    assert item["diff"]  # what it would have changed is still shown


def test_a_range_past_midnight_is_refused_as_the_editor_refuses_it(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = create(client, reseller, businesses={"numbers": [501]},
                    set={"additionalInfo": {"hoursOfOperations": [day(4, 18 * 3600, 7200)]}})
    item = items(client, reseller, answer.json()["id"])[501]
    assert item["state"] == "invalid"
    assert item["errors"][0]["field"].startswith("additionalInfo.hoursOfOperations[0]")
    assert "cannot run past midnight" in item["errors"][0]["message"]


def test_selection_by_the_lists_filters(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = create(client, reseller, businesses={"filter": {"city": "austin"}}, set=HOURS)
    assert answer.status_code == 201, answer.json()
    # Only locations: the enterprises (in Austin too, by the factory) are left out.
    assert sorted(items(client, reseller, answer.json()["id"])) == [501, 502, 601, 701]
    within = create(client, reseller, businesses={"filter": {"within": 500, "city": "Austin"}},
                    set=HOURS)
    assert sorted(items(client, reseller, within.json()["id"])) == [501, 502]


def test_a_limited_member_is_confined_to_their_subtree(api_member, brand):
    reseller, north, _, _ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller, limited_to=north)
    by_filter = create(client, reseller, businesses={"filter": {"city": "Austin"}}, set=HOURS)
    assert by_filter.status_code == 201
    assert sorted(items(client, reseller, by_filter.json()["id"])) == [501, 502]
    outside = create(client, reseller, businesses={"numbers": [501, 601, 999]}, set=HOURS)
    assert outside.status_code == 400
    assert outside.json()["fields"] == {"businesses.numbers": [
        "No business in your part of the account has these numbers: 601, 999."]}
    node = create(client, reseller, businesses={"node": 600}, set=HOURS)
    assert node.json()["fields"] == {"businesses.node": [
        "No business in your part of the account has the number 600."]}
    # The account-wide changes of others are not theirs to see.
    owner, _ = api_member(Role.OWNER, reseller=reseller)
    account_wide = create(owner, reseller, businesses={"node": 600}, set=HOURS).json()["id"]
    assert client.get(url(reseller, "api_bulk_change_detail", account_wide)).status_code == 404
    listed = client.get(url(reseller)).json()["results"]
    assert [change["id"] for change in listed] == [by_filter.json()["id"]]


def test_another_resellers_change_is_404_and_a_viewer_may_only_read(api_member, brand):
    reseller, *_ = brand
    owner, _ = api_member(Role.OWNER, reseller=reseller)
    change_id = create(owner, reseller, businesses={"node": 500}, set=HOURS).json()["id"]
    stranger, membership = api_member(Role.OWNER, reseller=ResellerFactory())
    other = membership.reseller
    for name in ("api_bulk_change_detail", "api_bulk_change_items"):
        assert stranger.get(url(other, name, change_id)).status_code == 404
    assert stranger.get(url(other)).json()["results"] == []
    viewer, _ = api_member(Role.VIEWER, reseller=reseller)
    refused = create(viewer, reseller, businesses={"node": 500}, set=HOURS)
    assert refused.status_code == 403
    assert viewer.get(url(reseller, "api_bulk_change_detail", change_id)).status_code == 200
    assert BulkChange.unscoped.filter(reseller=reseller).count() == 1


@pytest.mark.parametrize(("body", "fields"), [
    ({"set": {"additionalInfo": {"hours": []}}},
     {"set.additionalInfo.hours": [UNKNOWN_FIELD]}),
    ({"set": {"additionalInfo": {"hoursOfOperations": [{"day": 0, "isOpen": 0, "note": ""}]}}},
     {"set.additionalInfo.hoursOfOperations[0].note": [UNKNOWN_FIELD]}),
    ({"set": {"openingTimes": {"monday": "9-5"}}},
     {"set.openingTimes": [UNKNOWN_SECTION]}),
    ({"set": {}}, {"set": None}),
    ({"waves": [5, 0]}, {"waves[1]": ["A wave size is a whole number of locations, 1 or more; "
                                      "0 is not."]}),
    ({"lists": "merge"}, {"lists": None}),
    ({"dry_run": None}, {"dry_run": None}),
    ({"waves": [5, True]}, {"waves[1]": None}),
    ({"wait_for_statuses": "yes"}, {"wait_for_statuses": ["Give true or false."]}),
    ({"action_required_threshold": -1}, {"action_required_threshold": None}),
    ({"businesses": {}}, {"businesses": None}),
    ({"businesses": {"numbers": []}},
     {"businesses.numbers": ["Give at least one business number."]}),
    ({"businesses": {"numbers": [500]}}, {"businesses.numbers": [
        '500 (North brand) is not a location: choose its locations with {"node": 500}.']}),
    ({"businesses": {"filter": {"city": "Nowhere"}}}, {"businesses.filter": [
        "No location in your part of the account matches these filters."]}),
    ({"businesses": {"filter": {"colour": "red"}}},
     {"businesses.filter.colour": ["Not a filter of the businesses list."]}),
    ({"businesses": {"filter": {"listing_status": "Sparkling"}}},
     {"businesses.filter.listing_status": None}),
    ({"businesses": {"filter": {"removed": "only"}}}, {"businesses.filter.removed": None}),
    ({"businesses": {"tags": ["x"]}}, {"businesses.tags": None}),
    ({"businesses": {"node": 999}},
     {"businesses.node": ["No business in your part of the account has the number 999."]}),
    ({"colour": "red"}, {"colour": None}),
])
def test_bad_input_is_named(api_member, brand, body, fields):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    full = {"businesses": {"node": 500}, "set": HOURS, **body}
    answer = create(client, reseller, **full)
    assert answer.status_code == 400, answer.json()
    named = answer.json()["fields"]
    assert set(named) == set(fields), named
    for name, messages in fields.items():
        if messages is not None:
            assert named[name] == messages
    assert not BulkChange.unscoped.filter(reseller=reseller).exists()


@pytest.fixture
def sqlite_real_parameter_limit(monkeypatch):
    """Django assumes SQLite's old compile-time limit of 999 parameters per statement and
    splits bulk inserts by it; the SQLite here allows far more, as PostgreSQL does (the items
    then go in one INSERT per 5,000)."""
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        limit = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        monkeypatch.setattr(connection.features, "max_query_params", limit)


def test_the_queries_do_not_grow_with_the_locations(sqlite_real_parameter_limit):
    def dry_run_queries(count):
        reseller = ResellerFactory()
        parent = BusinessFactory(reseller=reseller, type=Business.Type.ENTERPRISE_LOCATION)
        for index in range(count):
            location = BusinessFactory(reseller=reseller, parent=parent, depth=1,
                                       tree_path=f"{parent.tree_path}{index}/")
            if index % 2:
                accept(location, listing(location.name))
        with tenant_scope(reseller), CaptureQueriesContext(connection) as queries:
            change = bulk_change_create(tenant=reseller, actor=None,
                                        businesses={"node": parent.remote_id}, set=HOURS,
                                        lists="replace", waves=[5], dry_run=True)
        assert change.counts["selected"] == count
        return len(queries)

    assert dry_run_queries(20) == dry_run_queries(200)

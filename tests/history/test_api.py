"""The history API: the series of the account, of a limited member's subtree and of a business,
its validation (a 400 naming the parameter) and who may read what."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from accounts.models import Business, Role
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, token_client
from tests.history.conftest import account_day, business_day

pytestmark = pytest.mark.django_db

D = dt.date


@pytest.fixture
def world():
    reseller = ResellerFactory(slug="history-a")
    brand = BusinessFactory(reseller=reseller, remote_id=100, tree_path="/100/", depth=0,
                            type=Business.Type.ENTERPRISE_LOCATION, name="Brand")
    shop = BusinessFactory(reseller=reseller, remote_id=101, parent=brand, depth=1,
                           tree_path="/100/101/", name="Shop")
    elsewhere = BusinessFactory(reseller=reseller, remote_id=200, tree_path="/200/")
    for day, synced in ((D(2026, 5, 30), 10), (D(2026, 5, 31), 12), (D(2026, 6, 2), 15)):
        business_day(shop, day, locations=1, reports=1, total_sites=20, synced=synced,
                     need_updates=2, needs_action=1, reviews=5, rating_1=1, rating_2=0,
                     rating_3=0, rating_4=0, rating_5=3)
        business_day(brand, day, locations=1, reports=1, total_sites=20, synced=synced)
        account_day(reseller, day, locations=2, reports=2, total_sites=40, synced=2 * synced,
                    competitors=3, competitor_rating="4.10", competitor_reviews=90,
                    survey_responses=4, nps_promoters=2, nps_passives=1, nps_detractors=1)
    other = ResellerFactory(slug="history-b")
    theirs = BusinessFactory(reseller=other, remote_id=900, tree_path="/900/")
    business_day(theirs, D(2026, 5, 31), locations=1)
    return {"reseller": reseller, "brand": brand, "shop": shop, "elsewhere": elsewhere,
            "other": other, "theirs": theirs}


def api(client, path, **params):
    return client.get(path, params)


def test_the_account_series_by_month_with_the_accounts_own_figures(world):
    viewer = MembershipFactory(reseller=world["reseller"], role=Role.VIEWER)
    response = api(token_client(viewer), "/api/v1/t/history-a/history/", interval="month",
                   **{"from": "2026-05-01", "to": "2026-06-30"})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["subject"], body["business_number"], body["interval"]) == (
        "account", None, "month")
    assert (body["from"], body["to"]) == ("2026-05-01", "2026-06-30")
    may, june = body["points"]
    assert (may["period_start"], may["day"], may["sites"]["synced"]) == (
        "2026-05-01", "2026-05-31", 24)
    assert (june["day"], june["synced_percent"]) == ("2026-06-02", 75.0)
    assert may["competitors"] == {"rows": 3, "average_rating": 4.1, "reviews": 90}
    assert may["surveys"]["nps"] == 25 and may["ranking"] is None
    assert may["reviews"] is None


def test_a_business_series_by_day(world):
    manager = MembershipFactory(reseller=world["reseller"], role=Role.MANAGER)
    response = api(token_client(manager), "/api/v1/t/history-a/businesses/101/history/",
                   **{"from": "2026-05-31", "to": "2026-06-02"})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["subject"], body["business_number"], body["name"]) == ("business", 101, "Shop")
    assert [p["day"] for p in body["points"]] == ["2026-05-31", "2026-06-02"]
    point = body["points"][0]
    assert point["reviews"] == {"total": 5, "by_rating": {"1": 1, "2": 0, "3": 0, "4": 0,
                                                          "5": 3}, "rated": 4, "average": 4.0}
    assert (point["locations_needing_action"], point["sites"]["need_updates"]) == (1, 2)
    assert "competitors" not in point


@pytest.mark.parametrize(("params", "field"), [
    ({"from": "31/05/2026"}, "from"),
    ({"to": "2026-02-30"}, "to"),
    ({"from": "2026-06-02", "to": "2026-05-01"}, "from"),
    ({"interval": "year"}, "interval"),
    ({"since": "2026-01-01"}, "since"),
])
def test_a_wrong_parameter_is_a_400_naming_it(world, params, field):
    viewer = MembershipFactory(reseller=world["reseller"], role=Role.VIEWER)
    client = token_client(viewer)
    for path in ("/api/v1/t/history-a/history/", "/api/v1/t/history-a/businesses/101/history/"):
        response = client.get(path, params)
        assert response.status_code == 400, response.json()
        assert list(response.json()["fields"]) == [field], response.json()


def test_a_limited_member_gets_their_subtree_and_nothing_outside_it(world):
    client_login = MembershipFactory(reseller=world["reseller"], role=Role.VIEWER,
                                     limited_to=world["brand"])
    client = token_client(client_login)
    body = api(client, "/api/v1/t/history-a/history/", **{"from": "2026-05-01"}).json()
    assert (body["subject"], body["business_number"], body["name"]) == ("subtree", 100, "Brand")
    assert [p["sites"]["synced"] for p in body["points"]] == [10, 12, 15]
    assert "competitors" not in body["points"][0]  # the account's own figures are not theirs
    assert api(client, "/api/v1/t/history-a/businesses/101/history/").status_code == 200
    assert api(client, "/api/v1/t/history-a/businesses/200/history/").status_code == 404


def test_another_resellers_business_or_account_is_a_404(world):
    owner = MembershipFactory(reseller=world["reseller"], role=Role.OWNER)
    client = token_client(owner)
    assert api(client, "/api/v1/t/history-a/businesses/900/history/").status_code == 404
    assert api(client, "/api/v1/t/history-b/history/").status_code == 404
    assert api(client, "/api/v1/t/history-b/businesses/900/history/").status_code == 404
    assert APIClient().get("/api/v1/t/history-a/history/").status_code == 401


def test_the_operations_are_documented_under_history(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/v1/t/{slug}/history/",
                 "/api/v1/t/{slug}/businesses/{remote_id}/history/"):
        operation = schema["paths"][path]["get"]
        assert operation["tags"] == ["History"]
        assert {p["name"] for p in operation["parameters"]} >= {"from", "to", "interval"}
        assert "400" in operation["responses"]
    assert any(tag["name"] == "History" for tag in schema["tags"])

"""Ageing against each directory's usual delay: the late sites (the selector, the page, the
API), the delays (default, learned, the reseller's own) and the count the needs-action ranking
reads."""

from __future__ import annotations

import datetime as dt
import importlib

import pytest
from django.apps import apps as django_apps
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import AuditEvent, Business, Role
from history.ageing import ageing_refresh, late_sites
from history.delays import (
    ACTION_REQUIRED_GRACE_DAYS,
    DEFAULT_DELAYS,
    LEARN_MIN_TRANSITIONS,
    delays_learn,
    directory_delay_set,
    directory_delays,
)
from listings.mirroring import status_reports_mirror
from listings.models import ListingSite, ListingStatusReport, SiteStatusChange
from portal.tenancy import tenant_scope
from provider.types import LocationStatusReport
from sandbox import models as sandbox
from sandbox.catalog import SiteState
from sandbox.status import change_site_status
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, token_client
from tests.history.conftest import run_sync

NOW = timezone.now()
SEARCH_ENGINE, CIVIC = 226, 158  # 5 days and 35 days by default


def days_ago(n: float) -> dt.datetime:
    return NOW - dt.timedelta(days=n)


def report(**statuses: str) -> LocationStatusReport:
    """A status report with sites `s<id>=status`."""
    sites = [{"siteId": int(key.removeprefix("s")), "siteName":
              DEFAULT_DELAYS[int(key.removeprefix("s"))].name, "status": status,
              "errors": ["Phone number does not match"] if status == "Action Required" else [],
              "url": ""} for key, status in statuses.items()]
    return LocationStatusReport.from_json({
        "businessName": "Shop", "locationStatus": "Published", "totalSites": len(sites),
        "syncedCount": sum(s["status"] == "Synced" for s in sites), "submittedCount": 0,
        "needUpdatesCount": sum(s["status"] == "Action Required" for s in sites),
        "optedOutCount": 0, "notConnectedCount": 0, "errors": [], "sites": sites})


def mirror(reseller, at, *reports, source="sync", run_ends=True):
    """The reports mirrored, then (`run_ends`) what the end of the sync run does of them."""
    with tenant_scope(reseller), transaction.atomic():
        status_reports_mirror(tenant=reseller, seen_at=at, source=source,
                              reports=list(reports))
    if run_ends:
        with tenant_scope(reseller):
            ageing_refresh(tenant=reseller, learn=False)


@pytest.fixture
def world(db):
    """Brand (an enterprise) > Shop, and Other elsewhere; sites seen at known moments."""
    reseller = ResellerFactory(slug="ageing-a")
    brand = BusinessFactory(reseller=reseller, remote_id=100, tree_path="/100/", depth=0,
                            type=Business.Type.ENTERPRISE_LOCATION, name="Brand")
    shop = BusinessFactory(reseller=reseller, remote_id=101, parent=brand, depth=1,
                           tree_path="/100/101/", name="Corner Shop", city="Austin")
    other = BusinessFactory(reseller=reseller, remote_id=200, tree_path="/200/",
                            name="Harbour Cafe", city="Boston")
    # Shop: Search Engine Submitted 20 days ago (late: 5 days), Civic In Progress 20 days
    # ago (not late: 35 days); Other: Search Engine Submitted 2 days ago (not late), Device
    # Maps asking for action for 10 days (late after the grace).
    mirror(reseller, days_ago(40), (shop, report(s226="Synced", s158="Synced")),
           (other, report(s226="Synced", s381="Synced")))
    mirror(reseller, days_ago(20), (shop, report(s226="Submitted", s158="In Progress")))
    mirror(reseller, days_ago(10), (other, report(s226="Synced", s381="Action Required")))
    mirror(reseller, days_ago(2), (other, report(s226="Submitted", s381="Action Required")))
    theirs_reseller = ResellerFactory(slug="ageing-b")
    theirs = BusinessFactory(reseller=theirs_reseller, remote_id=900, tree_path="/900/")
    mirror(theirs_reseller, days_ago(30), (theirs, report(s226="Synced")))
    mirror(theirs_reseller, days_ago(20), (theirs, report(s226="Submitted")))
    return {"reseller": reseller, "brand": brand, "shop": shop, "other": other,
            "theirs": theirs_reseller}


def rows(reseller, **kwargs):
    with tenant_scope(reseller):
        return list(late_sites(tenant=reseller, **kwargs))


@pytest.mark.django_db
def test_late_sites_against_each_directorys_delay(world):
    found = rows(world["reseller"])
    assert [(r.business.name, r.site_name, r.status) for r in found] == [
        ("Corner Shop", "Search Engine", "Submitted"),  # 15 days late
        ("Harbour Cafe", "Device Maps", "Action Required")]  # 7 days late
    waiting, action = found
    assert (waiting.age_days, waiting.delay_days, waiting.delay_source,
            waiting.late_by_days) == (20, 5, "default", 15)
    assert waiting.since_is_lower_bound is False
    assert "Waiting on Search Engine for 2 weeks; it usually takes 5 days" in waiting.todo
    assert (action.age_days, action.delay_days, action.delay_source, action.late_by_days) == (
        10, ACTION_REQUIRED_GRACE_DAYS, "grace", 10 - ACTION_REQUIRED_GRACE_DAYS)
    assert "Phone number does not match" in action.todo and "listing editor" in action.todo


def due_moments(reseller) -> dict[tuple[str, int], dt.datetime | None]:
    with tenant_scope(reseller):
        return {(site.business.name, site.site_id): site.due_at
                for site in ListingSite.objects.select_related("business")}


@pytest.mark.django_db
def test_each_site_keeps_when_it_becomes_late(world):
    reseller = world["reseller"]
    assert due_moments(reseller) == {
        ("Corner Shop", SEARCH_ENGINE): days_ago(20) + dt.timedelta(days=5),
        ("Corner Shop", CIVIC): days_ago(20) + dt.timedelta(days=35),
        ("Harbour Cafe", SEARCH_ENGINE): days_ago(2) + dt.timedelta(days=5),
        ("Harbour Cafe", 381): days_ago(10) + dt.timedelta(days=ACTION_REQUIRED_GRACE_DAYS)}
    # The reseller's own delay moves the due moment of that site at every location, and only
    # its own sites'; clearing it gives the default back.
    owner = MembershipFactory(reseller=reseller, role=Role.OWNER)
    theirs_before = due_moments(world["theirs"])
    with tenant_scope(reseller):
        directory_delay_set(tenant=reseller, actor=owner.user, site_id=SEARCH_ENGINE, days=30,
                            in_progress_days=None)
    due = due_moments(reseller)
    assert due[("Corner Shop", SEARCH_ENGINE)] == days_ago(20) + dt.timedelta(days=30)
    assert due[("Harbour Cafe", SEARCH_ENGINE)] == days_ago(2) + dt.timedelta(days=30)
    assert due[("Corner Shop", CIVIC)] == days_ago(20) + dt.timedelta(days=35)
    assert due_moments(world["theirs"]) == theirs_before
    with tenant_scope(reseller):
        directory_delay_set(tenant=reseller, actor=owner.user, site_id=SEARCH_ENGINE,
                            days=None)
    assert due_moments(reseller)[("Corner Shop", SEARCH_ENGINE)] == (
        days_ago(20) + dt.timedelta(days=5))
    # A site that moves on has no due moment, at once; one that starts waiting again has its
    # new one from the end of the sync run (it cannot be late before a day has passed).
    mirror(reseller, days_ago(0.5), (world["shop"], report(s226="Synced", s158="Submitted")),
           run_ends=False)
    due = due_moments(reseller)
    assert due[("Corner Shop", SEARCH_ENGINE)] is due[("Corner Shop", CIVIC)] is None
    assert due[("Harbour Cafe", 381)] is not None  # unchanged sites keep theirs
    assert [r.site_name for r in rows(reseller)] == ["Device Maps"]
    with tenant_scope(reseller):
        assert ageing_refresh(tenant=reseller, learn=False, now=NOW)["due_written"] == 1
    due = due_moments(reseller)
    assert due[("Corner Shop", SEARCH_ENGINE)] is None
    assert due[("Corner Shop", CIVIC)] == days_ago(0.5) + dt.timedelta(days=35)


@pytest.mark.django_db
def test_the_evening_check_mends_due_moments_out_of_date(world):
    """What the signals and the delays' writes keep up to date is checked once a day: here the
    moments a former default left, and a synced site still holding one."""
    reseller = world["reseller"]
    bakery = BusinessFactory(reseller=reseller, remote_id=300, tree_path="/300/",
                             name="Quay Bakery")
    mirror(reseller, days_ago(5), (bakery, report(s2="Synced")))
    right = due_moments(reseller)
    assert right[("Quay Bakery", 2)] is None
    with tenant_scope(reseller):
        ListingSite.objects.filter(site_id=SEARCH_ENGINE).update(due_at=days_ago(90))
        ListingSite.objects.filter(status="Synced").update(due_at=days_ago(90))
    # Harbour Cafe's Search Engine and Quay Bakery's synced site, late by the wrong moments.
    assert len(rows(reseller)) == 4
    with tenant_scope(reseller):
        # After a sync run, only the sites without one are given theirs.
        assert ageing_refresh(tenant=reseller, learn=False, now=NOW)["due_written"] == 0
        assert ageing_refresh(tenant=reseller, now=NOW)["due_written"] == 3
        assert due_moments(reseller) == right
        assert ageing_refresh(tenant=reseller, now=NOW)["due_written"] == 0
    assert [r.site_name for r in rows(reseller)] == ["Search Engine", "Device Maps"]


@pytest.mark.django_db
def test_the_migration_fills_the_due_moments_of_sites_mirrored_before(world):
    fill = importlib.import_module(
        "history.migrations.0003_listing_site_due_at_fill").fill_due_at
    reseller = world["reseller"]
    owner = MembershipFactory(reseller=reseller, role=Role.OWNER)
    with tenant_scope(reseller):
        directory_delay_set(tenant=reseller, actor=owner.user, site_id=CIVIC, days=10)
    right, theirs = due_moments(reseller), due_moments(world["theirs"])
    ListingSite.unscoped.update(due_at=None)
    fill(django_apps, None)
    assert due_moments(reseller) == right
    assert due_moments(world["theirs"]) == theirs
    assert right[("Corner Shop", CIVIC)] == days_ago(20) + dt.timedelta(days=10)


@pytest.mark.django_db
def test_filters_and_sorting(world):
    reseller = world["reseller"]
    assert [r.site_id for r in rows(reseller, site_id=381)] == [381]
    assert [r.status for r in rows(reseller, status="submitted")] == ["Submitted"]
    assert [r.business.name for r in rows(reseller, within=100)] == ["Corner Shop"]
    assert rows(reseller, within=999) == []
    assert [r.business.name for r in rows(reseller, search="harbour boston")] == [
        "Harbour Cafe"]
    assert [r.business.name for r in rows(reseller, sort="location")] == [
        "Corner Shop", "Harbour Cafe"]
    assert [r.business.name for r in rows(reseller, sort="-location")] == [
        "Harbour Cafe", "Corner Shop"]
    assert [r.late_by_days for r in rows(reseller, sort="late_by")] == [7, 15]
    assert [r.age_days for r in rows(reseller, sort="-age")] == [20, 10]


@pytest.mark.django_db
def test_a_reseller_override_applies_and_is_audited(world):
    reseller = world["reseller"]
    owner = MembershipFactory(reseller=reseller, role=Role.OWNER)
    with tenant_scope(reseller):
        delay = directory_delay_set(tenant=reseller, actor=owner.user, site_id=SEARCH_ENGINE,
                                    days=30)
        assert (delay.days, delay.source) == (30, "own")
        event = AuditEvent.objects.get(action="directory_delay.set")
        assert event.summary["days"] == [None, 30]
    assert [r.site_name for r in rows(reseller)] == ["Device Maps"]
    with tenant_scope(reseller):
        directory_delay_set(tenant=reseller, actor=owner.user, site_id=CIVIC, days=40,
                            in_progress_days=10)
    late = rows(reseller)
    assert [(r.site_name, r.delay_days, r.delay_source) for r in late] == [
        ("Civic Listings", 10, "own"), ("Device Maps", 3, "grace")]


@pytest.mark.django_db
def test_the_delay_is_learned_once_enough_sites_went_through(world):
    reseller = world["reseller"]
    # Waits of 30 days on Search Engine (10 Submitted, then 20 In Progress) at as many
    # locations, one too few then enough.
    changes = []
    for n in range(LEARN_MIN_TRANSITIONS):
        shop = BusinessFactory(reseller=reseller, remote_id=500 + n, tree_path=f"/{500 + n}/")
        start = days_ago(100 + n)
        changes += [SiteStatusChange(reseller=reseller, business=shop, site_id=SEARCH_ENGINE,
                                     site_name="Search Engine", from_status="Synced",
                                     to_status="Submitted", at=start),
                    SiteStatusChange(reseller=reseller, business=shop, site_id=SEARCH_ENGINE,
                                     site_name="Search Engine", from_status="Submitted",
                                     to_status="In Progress", at=start + dt.timedelta(days=10)),
                    SiteStatusChange(reseller=reseller, business=shop, site_id=SEARCH_ENGINE,
                                     site_name="Search Engine", from_status="In Progress",
                                     to_status="Synced", at=start + dt.timedelta(days=30))]
    SiteStatusChange.unscoped.bulk_create(changes[3:])
    with tenant_scope(reseller):
        delays_learn(tenant=reseller, now=NOW)
        engine = next(d for d in directory_delays(tenant=reseller)
                      if d.site_id == SEARCH_ENGINE)
        assert (engine.learned_days, engine.learned_transitions) == (30, 19)
        assert (engine.days, engine.source) == (5, "default")  # too few to use
    SiteStatusChange.unscoped.bulk_create(changes[:3])
    with tenant_scope(reseller):
        delays_learn(tenant=reseller, now=NOW)
        engine = next(d for d in directory_delays(tenant=reseller)
                      if d.site_id == SEARCH_ENGINE)
        assert (engine.days, engine.source, engine.learned_transitions) == (
            30, "learned", LEARN_MIN_TRANSITIONS)
    # 20 days waiting is no longer late against a learned 30.
    assert [r.site_name for r in rows(reseller)] == ["Device Maps"]


@pytest.mark.django_db
def test_a_limited_member_sees_their_subtree_only(world):
    reseller = world["reseller"]
    limited = MembershipFactory(reseller=reseller, role=Role.VIEWER,
                                limited_to=world["brand"])
    assert [r.business.name for r in rows(reseller, membership=limited)] == ["Corner Shop"]
    assert rows(reseller, membership=limited, within=200) == []
    body = token_client(limited).get("/api/v1/t/ageing-a/late-sites/").json()
    assert [r["location"] for r in body["results"]] == ["Corner Shop"]
    assert token_client(limited).get(
        "/api/v1/t/ageing-a/directory-delays/").status_code == 403


@pytest.mark.django_db
def test_the_api_lists_the_late_sites(world):
    viewer = MembershipFactory(reseller=world["reseller"], role=Role.VIEWER)
    response = token_client(viewer).get("/api/v1/t/ageing-a/late-sites/",
                                        {"sort": "location", "limit": 1})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["count"] == 2
    (row,) = body["results"]
    assert {k: row[k] for k in ("business_number", "location", "site_id", "site_name",
                                "status", "age_days", "delay_days", "delay_source",
                                "late_by_days", "since_is_lower_bound")} == {
        "business_number": 101, "location": "Corner Shop", "site_id": SEARCH_ENGINE,
        "site_name": "Search Engine", "status": "Submitted", "age_days": 20, "delay_days": 5,
        "delay_source": "default", "late_by_days": 15, "since_is_lower_bound": False}
    assert row["address"] and row["todo"].startswith("Waiting on Search Engine")


@pytest.mark.django_db
@pytest.mark.parametrize(("params", "field"), [
    ({"status": "stuck"}, "status"), ({"site": "abc"}, "site"), ({"site": "9999"}, "site"),
    ({"within": "0"}, "within"), ({"sort": "price"}, "sort"), ({"colour": "red"}, "colour")])
def test_a_bad_filter_is_a_400_naming_it(world, params, field):
    viewer = MembershipFactory(reseller=world["reseller"], role=Role.VIEWER)
    response = token_client(viewer).get("/api/v1/t/ageing-a/late-sites/", params)
    assert response.status_code == 400
    assert field in response.json()["fields"]


@pytest.mark.django_db
def test_another_resellers_list_is_a_404(world):
    viewer = MembershipFactory(reseller=world["reseller"], role=Role.OWNER)
    client = token_client(viewer)
    assert client.get("/api/v1/t/ageing-b/late-sites/").status_code == 404
    assert client.put("/api/v1/t/ageing-b/directory-delays/", {"delays": []},
                      format="json").status_code == 404
    with tenant_scope(world["theirs"]):
        assert len(rows(world["theirs"])) == 1  # theirs stays theirs
    assert all(r.business.reseller_id == world["reseller"].pk for r in rows(world["reseller"]))


@pytest.mark.django_db
def test_the_delays_api_reads_for_all_and_writes_for_owners(world):
    reseller = world["reseller"]
    viewer = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    manager = MembershipFactory(reseller=reseller, role=Role.MANAGER)
    owner = MembershipFactory(reseller=reseller, role=Role.OWNER)
    listed = token_client(viewer).get("/api/v1/t/ageing-a/directory-delays/").json()
    engine = next(d for d in listed if d["site_id"] == SEARCH_ENGINE)
    assert (engine["default_days"], engine["days"], engine["source"]) == (5, 5, "default")
    body = {"delays": [{"site_id": SEARCH_ENGINE, "days": 25}]}
    assert token_client(manager).put("/api/v1/t/ageing-a/directory-delays/", body,
                                     format="json").status_code == 403
    response = token_client(owner).put("/api/v1/t/ageing-a/directory-delays/", body,
                                       format="json")
    assert response.status_code == 200, response.json()
    engine = next(d for d in response.json() if d["site_id"] == SEARCH_ENGINE)
    assert (engine["own_days"], engine["days"], engine["source"]) == (25, 25, "own")
    with tenant_scope(reseller):
        assert AuditEvent.objects.filter(action="directory_delay.set").count() == 1
    # All or nothing; an unknown field or site is named.
    bad = token_client(owner).put("/api/v1/t/ageing-a/directory-delays/", {"delays": [
        {"site_id": CIVIC, "days": 9}, {"site_id": 4242, "days": 3}]}, format="json")
    assert bad.status_code == 400 and "delays[1].site_id" in bad.json()["fields"]
    extra = token_client(owner).put("/api/v1/t/ageing-a/directory-delays/", {"delays": [
        {"site_id": CIVIC, "days": 9, "colour": 1}]}, format="json")
    assert extra.status_code == 400
    with tenant_scope(reseller):
        assert next(d for d in directory_delays(tenant=reseller)
                    if d.site_id == CIVIC).own_days is None


@pytest.mark.django_db
def test_the_page_lists_sorts_and_filters(world, member_client, django_assert_max_num_queries):
    client, _membership = member_client(Role.VIEWER, reseller=world["reseller"])
    page = client.get("/t/ageing-a/late-sites/").content.decode()
    assert "Corner Shop" in page and "Harbour Cafe" in page
    assert page.index("Corner Shop") < page.index("Harbour Cafe")
    assert "2 sites" in page and "Waiting on Search Engine" in page
    page = client.get("/t/ageing-a/late-sites/?status=action_required").content.decode()
    assert "Harbour Cafe" in page and "Corner Shop" not in page
    page = client.get("/t/ageing-a/late-sites/?site=abc").content.decode()
    assert "Correct the filters" in page
    # The page's statements do not grow with the late sites.
    with CaptureQueriesContext(connection) as few:
        client.get("/t/ageing-a/late-sites/")
    shops = [BusinessFactory(reseller=world["reseller"], remote_id=300 + n,
                             tree_path=f"/{300 + n}/") for n in range(30)]
    mirror(world["reseller"], days_ago(50), *((shop, report(s226="Synced")) for shop in shops))
    mirror(world["reseller"], days_ago(40), *((shop, report(s226="Submitted"))
                                              for shop in shops))
    with django_assert_max_num_queries(len(few.captured_queries)):
        page = client.get("/t/ageing-a/late-sites/").content.decode()
    assert "32 sites" in page


@pytest.mark.django_db
def test_the_query_count_is_pinned(world, member_client, django_assert_num_queries,
                                   django_assert_max_num_queries):
    reseller = world["reseller"]
    # The list itself: the delays, the count, the ids of the page (from the due moments'
    # index) and the page's rows with their locations, whatever their number.
    with tenant_scope(reseller), django_assert_num_queries(4):
        sites = late_sites(tenant=reseller, sort="location")
        assert sites.count() == 2
        assert [r.business.name for r in sites[0:50]] == ["Corner Shop", "Harbour Cafe"]
    client, _membership = member_client(Role.VIEWER, reseller=reseller)
    client.get("/t/ageing-a/late-sites/")
    with django_assert_max_num_queries(15):  # as the other list pages
        client.get("/t/ageing-a/late-sites/")


@pytest.mark.django_db
def test_the_delays_page_reads_for_a_viewer_and_saves_for_an_owner(world, member_client):
    client, _membership = member_client(Role.VIEWER, reseller=world["reseller"])
    page = client.get("/t/ageing-a/settings/directory-delays/").content.decode()
    assert "Search Engine" in page and "Portal default" in page and 'name="days"' \
        not in page
    assert client.post("/t/ageing-a/settings/directory-delays/",
                       {"site_id": SEARCH_ENGINE, "days": 9}).status_code == 403
    client, _membership = member_client(Role.OWNER, reseller=world["reseller"])
    response = client.post("/t/ageing-a/settings/directory-delays/",
                           {"site_id": SEARCH_ENGINE, "days": 9})
    assert response.status_code == 302
    page = client.get("/t/ageing-a/settings/directory-delays/").content.decode()
    assert "Your setting" in page
    refused = client.post("/t/ageing-a/settings/directory-delays/",
                          {"site_id": SEARCH_ENGINE, "days": 0})
    assert refused.status_code == 400


@pytest.mark.django_db
def test_the_count_the_ranking_reads_follows_the_late_sites(world):
    reseller = world["reseller"]
    with tenant_scope(reseller):
        ageing_refresh(tenant=reseller, learn=False, now=NOW)
        counts = dict(ListingStatusReport.objects.values_list("business__name",
                                                              "late_sites_count"))
        assert counts == {"Corner Shop": 1, "Harbour Cafe": 1}
        with CaptureQueriesContext(connection) as unchanged:
            assert ageing_refresh(tenant=reseller, learn=False, now=NOW)["counts_changed"] == 0
        # The delays and the sites without a due moment, the counts, the current ones.
        assert len(unchanged.captured_queries) == 4
    mirror(reseller, NOW, (world["shop"], report(s226="Synced", s158="In Progress")))
    with tenant_scope(reseller):
        ageing_refresh(tenant=reseller, learn=False)
        assert ListingStatusReport.objects.get(business=world["shop"]).late_sites_count == 0


# -- the test, with the sandbox over real HTTP ------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_site_held_in_progress_past_its_delay_is_late_then_gone_once_it_moves_on(
        sandbox_reseller, seeded):
    reseller = sandbox_reseller
    sandbox.SiteStatus.objects.update(next_change_at=None)  # only what the test moves moves
    run_sync(reseller)
    number = seeded["location_numbers"][0]
    site = (sandbox.SiteStatus.objects.filter(location__number=number, site_id=SEARCH_ENGINE)
            .first())
    assert site is not None
    moved_at = timezone.now()
    if site.status != SiteState.SYNCED:
        assert change_site_status(site, SiteState.SYNCED, errors=[], at=moved_at)
        run_sync(reseller, "listing_status")
    assert change_site_status(site, SiteState.IN_PROGRESS, errors=[], at=timezone.now())
    run_sync(reseller, "listing_status")
    with tenant_scope(reseller):
        held = ListingSite.objects.get(business__remote_id=number, site_id=SEARCH_ENGINE)
        assert (held.status, held.previous_status) == (SiteState.IN_PROGRESS, SiteState.SYNCED)
    delay = DEFAULT_DELAYS[SEARCH_ENGINE].days
    later = held.status_since + dt.timedelta(days=delay + 4, hours=1)

    def ours(now):
        with tenant_scope(reseller):
            return [r for r in late_sites(tenant=reseller, site_id=SEARCH_ENGINE, now=now)
                    if r.business.remote_id == number]

    assert ours(held.status_since + dt.timedelta(days=delay - 1)) == []  # not yet
    (row,) = ours(later)
    assert (row.status, row.age_days, row.delay_days, row.late_by_days) == (
        SiteState.IN_PROGRESS, delay + 4, delay, 4)
    assert row.since == held.status_since and not row.since_is_lower_bound

    assert change_site_status(site, SiteState.SYNCED, errors=[], at=timezone.now())
    run_sync(reseller, "listing_status")
    assert ours(later) == []

"""Location status report (operation 12) and the listing lifecycle on directory sites."""

from __future__ import annotations

import datetime
import re
import time

from django.utils import timezone

from sandbox import status as lifecycle
from sandbox.catalog import SITES, SiteState
from sandbox.models import Listing, SiteStatus
from tests.sandbox.conftest import LIVE_DB, assert_error, valid_listing

pytestmark = LIVE_DB

COUNTS = ("syncedCount", "submittedCount", "needUpdatesCount", "optedOutCount", "notConnectedCount")
ORDER = {SiteState.SUBMITTED: 0, SiteState.IN_PROGRESS: 1, SiteState.SYNCED: 2}
ORDER[SiteState.ACTION_REQUIRED] = 2


def report(api, number):
    response = api.get("/v1/listing/status/location", params={"businessNumber": number})
    assert response.status_code == 200, response.text
    return response.json()


def check_consistent(body: dict) -> None:
    assert body["totalSites"] == len(body["sites"]) == len(SITES)
    assert sum(body[name] for name in COUNTS) == body["totalSites"]
    for name in COUNTS:
        percentage = body[name.replace("Count", "Percentage")]
        assert re.fullmatch(r"\d{1,3}\.\d{2}%", percentage)
        assert percentage == f"{body[name] * 100 / body['totalSites']:.2f}%"


def test_report_shape(api, seeded):
    for number in seeded["location_numbers"]:
        body = report(api, number)
        check_consistent(body)
        assert body["activationStatus"] in ("active", "demo", "inactive")
        assert body["locationStatus"] in ("Published", "Scan State", "Disabled")
        assert re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d", body["lastUpdated"])
        assert isinstance(body["publishListings"], str)
        assert ("errors" in body) == (body["locationStatus"] != "Published")
        for site in body["sites"]:
            assert {"siteId", "siteName", "status"} <= set(site)
            assert site["status"] in (*ORDER, SiteState.CONNECT, SiteState.OPTED_OUT)


def test_errors_for_reseller_enterprise_unknown_and_missing(api, seeded):
    for number in (seeded["account_number"], seeded["enterprise_ids"][1]):
        response = api.get("/v1/listing/status/location", params={"businessNumber": number})
        assert_error(response, 400, 1043)
    response = api.get("/v1/listing/status/location", params={"businessNumber": 98765})
    assert_error(response, 404, 1175)
    assert_error(api.get("/v1/listing/status/location"), 400, 400)
    response = api.get("/v1/listing/status/location", params={"businessNumber": "x1"})
    assert_error(response, 400, 400)


def test_sites_move_forward_after_a_create(api, partner, location):
    partner.status_step_seconds = 1
    partner.save()
    SiteStatus.objects.filter(location=location).update(connected=True)
    assert (
        api.post(f"/v1/listing/{location.number}/create", json=valid_listing()).status_code == 200
    )

    first = report(api, location.number)
    check_consistent(first)
    started = {site["siteId"]: site["status"] for site in first["sites"]}
    assert set(started.values()) <= {SiteState.SUBMITTED, SiteState.IN_PROGRESS}

    seen = [started]
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        time.sleep(0.5)
        body = report(api, location.number)
        check_consistent(body)
        seen.append({site["siteId"]: site["status"] for site in body["sites"]})
        if all(s in (SiteState.SYNCED, SiteState.ACTION_REQUIRED) for s in seen[-1].values()):
            break
    final = seen[-1]
    assert all(s in (SiteState.SYNCED, SiteState.ACTION_REQUIRED) for s in final.values())
    for earlier, later in zip(seen, seen[1:], strict=False):
        for site_id, status in earlier.items():
            assert ORDER[later[site_id]] >= ORDER[status]
    synced = [site for site in body["sites"] if site["status"] == SiteState.SYNCED]
    assert all(site["url"].startswith("https://") for site in synced)
    needing = [site for site in body["sites"] if site["status"] == SiteState.ACTION_REQUIRED]
    assert all(site["errors"] for site in needing)
    assert body["syncedCount"] == len(synced) and body["needUpdatesCount"] == len(needing)


def test_opted_out_and_unconnected_sites_do_not_move(api, partner, location):
    SiteStatus.objects.filter(location=location, site_id=110).update(
        connected=False, status=SiteState.CONNECT
    )
    body = valid_listing()
    body["optOut"] = {"profileListingOptOut": True}
    assert api.post(f"/v1/listing/{location.number}/create", json=body).status_code == 200
    sites = {site["siteId"]: site for site in report(api, location.number)["sites"]}
    assert sites[2]["status"] == SiteState.OPTED_OUT
    assert sites[110]["status"] == SiteState.CONNECT


def test_lifecycle_is_deterministic_and_steps_at_their_due_time(partner, location):
    Listing.objects.filter(location=location).delete()
    listing = Listing.objects.create(
        partner=partner, location=location, payload=valid_listing(), fixed=True, version=1
    )
    SiteStatus.objects.filter(location=location).update(connected=True)
    start = timezone.now()
    lifecycle.start_site_statuses(listing, step_seconds=60, now=start)
    statuses = SiteStatus.objects.filter(location=location)
    assert {site.status for site in statuses} == {SiteState.SUBMITTED}

    lifecycle.advance_location_sites(location, start + datetime.timedelta(seconds=59))
    assert {site.status for site in statuses.all()} == {SiteState.SUBMITTED}
    lifecycle.advance_location_sites(location, start + datetime.timedelta(seconds=60))
    assert {site.status for site in statuses.all()} == {SiteState.IN_PROGRESS}
    lifecycle.advance_location_sites(location, start + datetime.timedelta(seconds=500))
    final = {site.site_id: (site.status, site.errors) for site in statuses.all()}
    expected = {
        site.site_id: lifecycle.planned_outcome(location.number, site.site_id, 1) for site in SITES
    }
    assert final == {site_id: (status, errors) for site_id, (status, errors) in expected.items()}
    # Each step is dated when it was due, not when somebody looked.
    assert {site.updated_at for site in statuses.all()} == {start + datetime.timedelta(seconds=120)}


def test_every_change_goes_through_one_hook(monkeypatch, partner, location):
    calls = []
    original = lifecycle.change_site_status

    def spy(site, status, **kwargs):
        changed = original(site, status, **kwargs)
        calls.append((site.site_id, status, changed))
        return changed

    monkeypatch.setattr(lifecycle, "change_site_status", spy)
    listing = Listing.objects.get_or_create(location=location, defaults={"partner": partner})[0]
    listing.version = 7
    SiteStatus.objects.filter(location=location).update(connected=True)
    start = timezone.now()
    lifecycle.start_site_statuses(listing, step_seconds=0, now=start)
    lifecycle.advance_location_sites(location, start)
    assert len(calls) == 3 * len(SITES)  # Submitted, In Progress, final
    # A stale copy of a site that someone else already moved does not write again.
    site = SiteStatus.objects.filter(location=location).first()
    stale_revision = site.revision - 1
    site.revision = stale_revision
    assert original(site, SiteState.SYNCED, errors=[], at=start) is False


def test_percentage_format():
    assert lifecycle.percentage(15, 22) == "68.18%"
    assert lifecycle.percentage(0, 22) == "0.00%"
    assert lifecycle.percentage(22, 22) == "100.00%"
    assert lifecycle.percentage(0, 0) == "0.00%"

"""A client's report: its figures are those of the portal's pages and API for the same subtree
and period (read back from the PDF's text), in the reseller's brand; a limited member's report
covers their subtree only; the period and the client are checked, naming the field."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Role
from portal.tenancy import tenant_scope
from reports.rendering import report_render
from reports.selectors import (
    MAX_PERIOD_DAYS,
    chart_interval,
    period_check,
    preset_period,
    report_build,
)
from tests.factories import BusinessFactory, MembershipFactory, token_client
from tests.reports.conftest import FROM, PERIOD, TO, late_site, pdf_text, status_report, version

pytestmark = pytest.mark.django_db

SUMMARY = "/api/v1/t/northwind/reports/summary/"
RENDER = "/api/v1/t/northwind/reports/render/"


def member(agency, role=Role.VIEWER, limited_to=None):
    return MembershipFactory(reseller=agency["reseller"], role=role, limited_to=limited_to)


def test_a_clients_figures_equal_the_history_api_dashboard_and_late_sites(agency, client):
    """A viewer limited to the brand: the report of their part of the account says what the
    dashboard, the history API and the late sites say for it, in its JSON and in its PDF."""
    viewer = member(agency, limited_to=agency["brand"])
    api = token_client(viewer)
    summary = api.get(SUMMARY, PERIOD)
    assert summary.status_code == 200, summary.content
    report = summary.json()
    assert (report["subject"], report["business_number"], report["name"]) == (
        "subtree", 100, "Bakery Brand")

    # The history API of the same subtree and days, day by day.
    history = api.get("/api/v1/t/northwind/history/", {**PERIOD, "interval": "day"}).json()
    last = history["points"][-1]
    assert [p["day"] for p in report["points"]] == [p["day"] for p in history["points"]] == [
        "2026-03-10", "2026-03-31"]
    changes = {c["figure"]: c for c in report["changes"]}
    assert changes["synced_percent"]["now"] == last["synced_percent"] == 63.3
    assert changes["synced_percent"]["before"] == 40.0  # Feb 28: the day before the period
    assert changes["synced_percent"]["before_day"] == "2026-02-28"
    assert changes["sites_needing_action"]["now"] == last["sites"]["need_updates"] == 9
    assert changes["locations_needing_action"]["now"] == last["locations_needing_action"]
    assert report["reviews"]["total"] == last["reviews"]["total"] == 30
    assert report["reviews"]["average"] == last["reviews"]["average"]
    assert report["reviews"]["by_rating"] == last["reviews"]["by_rating"]
    assert report["sites_at_end"]["synced"] == last["sites"]["synced"] == 19

    # The dashboard of the same member: the figures now.
    client.force_login(viewer.user)
    dashboard = client.get(reverse("tenant_home", args=["northwind"])).context["dashboard"]
    assert report["locations"]["count"] == dashboard.location_count == 2
    assert report["sites_now"]["synced_percent"] == dashboard.synced_percent == 63  # 19 of 30
    assert report["locations"]["needing_action"] == dashboard.health["needs_action"] == 2
    assert report["locations"]["work"] == dashboard.work
    assert [row["name"] for row in report["locations"]["first"]] == [
        b.name for b in dashboard.needs_action] == ["Mall Kiosk", "Corner Shop"]

    # The late sites, page and API.
    late = api.get("/api/v1/t/northwind/late-sites/").json()
    assert report["late_sites"]["count"] == late["count"] == 2
    assert [s["site"] for s in report["late_sites"]["first"]] == [
        s["site_name"] for s in late["results"]]
    page = client.get(reverse("late_sites", args=["northwind"]))
    assert page.context["page_obj"].paginator.count == 2

    # The PDF says the same.
    pdf = client.get(reverse("report_pdf", args=["northwind"]), PERIOD)
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdf["Content-Disposition"] == (
        'attachment; filename="report-100-2026-03-01-2026-03-31.pdf"')
    text = pdf_text(pdf.content)
    average = f"{report['reviews']['average']:.2f}"
    for said in ("Report for Bakery Brand", "Mar 1, 2026 to Mar 31, 2026",
                 "Listing sites synced 63% 40%", "up 23 points, better",
                 "Sites needing action 9 10", "63% of 30 listing sites synced",
                 f"average rating {average} of 5", "30 reviews at Mar 31, 2026",
                 "2 sites late against their directory's usual delay",
                 "Mall Kiosk (102) Many sites to fix", "Corner Shop (101) A few sites to update",
                 "Search Engine Submitted", "Profile Platform Action Required"):
        assert said in text, (said, text)
    assert "Faraway Outlet" not in text and "Garage Group" not in text


def test_the_pdf_carries_the_brand_and_the_api_renders_it(agency):
    with tenant_scope(agency["reseller"]):
        rendered = report_render(tenant=agency["reseller"], business=None, date_from=FROM,
                                 date_to=TO)
    assert rendered.filename == "report-account-2026-03-01-2026-03-31.pdf"
    assert rendered.pdf.startswith(b"%PDF-")
    rendered.pdf.decode("ascii")  # wholly 7-bit: it travels as text unchanged
    text = pdf_text(rendered.pdf)
    assert text.count("Northwind Reports · Northwind Digital") == rendered.pages  # footers
    assert text.count("Northwind Reports") >= 2 * rendered.pages  # and headers
    assert "Questions: help@northwind.example" in text
    assert f"Page {rendered.pages} of {rendered.pages}" in text
    assert "Reseller portal" not in text
    # The whole account: competitors, ranking and surveys, and every client's work.
    for said in ("Report for Northwind Digital", "the whole account of Northwind Digital",
                 "Competitors' average rating 3.90", "Ranking: your rating 4.10",
                 "Net Promoter Score +42", "Faraway Outlet"):
        assert said in text, (said, text)

    owner = member(agency, role=Role.OWNER)
    response = token_client(owner).get(RENDER, {**PERIOD, "business": 200})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="report-200-2026-03-01-2026-03-31.pdf"' in response["Content-Disposition"]
    text = pdf_text(response.content)
    assert "Report for Garage Group" in text and "Bakery Brand" not in text


def test_the_agencys_work_in_the_period_is_counted_within_the_client(agency):
    api = token_client(member(agency))
    work = api.get(SUMMARY, {**PERIOD, "business": 100}).json()["work"]
    assert {key: work[key] for key in work if key != "latest"} == {
        "listing_versions_sent": 2, "listing_versions_accepted": 1,
        "listing_versions_refused": 1, "bulk_changes": 1, "bulk_locations_changed": 2,
        "media_sent": 1, "media_added": 1}
    assert [(a["kind"], a["what"], a["where"]) for a in work["latest"]] == [
        ("Listing update", "Phone number", "Corner Shop"),
        ("Media", "Photo: storefront", "Mall Kiosk"),
        ("Listing update", "Opening hours", "Corner Shop"),
        ("Bulk change", "Opening hours", "2 locations")]
    account = api.get(SUMMARY, PERIOD).json()["work"]
    assert account["listing_versions_sent"] == 3 and account["bulk_locations_changed"] == 3
    # A location's report is its own.
    shop = api.get(SUMMARY, {**PERIOD, "business": 102}).json()
    assert shop["locations"]["count"] == 1 and shop["work"]["media_added"] == 1
    assert shop["work"]["listing_versions_sent"] == 0


def test_a_limited_member_sees_their_subtree_and_another_is_404(agency, client):
    viewer = member(agency, limited_to=agency["brand"])
    api = token_client(viewer)
    assert api.get(SUMMARY, {**PERIOD, "business": 200}).status_code == 404
    assert api.get(RENDER, {**PERIOD, "business": 201}).status_code == 404
    # Any number outside their part, existing or not: they learn nothing of the rest.
    assert api.get(SUMMARY, {**PERIOD, "business": 999}).status_code == 404
    assert api.get(SUMMARY, {**PERIOD, "business": 101}).json()["name"] == "Corner Shop"
    client.force_login(viewer.user)
    for name in ("report", "report_pdf"):
        url = reverse(name, args=["northwind"])
        assert client.get(url, {**PERIOD, "business": 200}).status_code == 404
    page = client.get(reverse("report", args=["northwind"]), PERIOD)
    assert page.status_code == 200
    assert page.context["report"].client_name == "Bakery Brand"
    assert "Faraway Outlet" not in page.content.decode()
    # Their subtree's report equals the brand's asked for by number.
    by_number = api.get(SUMMARY, {**PERIOD, "business": 100}).json()
    mine = api.get(SUMMARY, PERIOD).json()
    for key in ("locations", "sites_now", "changes", "reviews", "late_sites", "work"):
        assert mine[key] == by_number[key], key


def test_another_resellers_member_gets_404(agency, client):
    stranger = MembershipFactory(role=Role.OWNER)
    assert token_client(stranger).get(SUMMARY, PERIOD).status_code == 404
    client.force_login(stranger.user)
    assert client.get(reverse("report", args=["northwind"])).status_code == 404
    assert client.get(reverse("report_pdf", args=["northwind"])).status_code == 404


def test_a_viewer_reads_the_page_with_its_charts_and_pdf_link(agency, client):
    viewer = member(agency)
    client.force_login(viewer.user)
    response = client.get(reverse("report", args=["northwind"]), {**PERIOD, "business": 100})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Report for Bakery Brand" in body
    assert ('href="/t/northwind/reports/pdf/?from=2026-03-01&amp;to=2026-03-31&amp;'
            'business=100"') in body
    assert body.count("<svg") >= 4  # synced share, rating, and bars by status and by rating
    assert 'data-figure="synced_percent"' in body and "up 23 points" in body
    assert 'href="/t/northwind/reports/"' in body  # in the menu
    # Without parameters: last month of everything the member sees.
    first = client.get(reverse("report", args=["northwind"]))
    start, end = preset_period("last_month")
    assert (first.context["report"].date_from, first.context["report"].date_to) == (start, end)
    assert first.context["report"].subject_kind == "account"
    # Viewers read, never write.
    assert client.post(reverse("report_pdf", args=["northwind"])).status_code == 403


def test_a_business_page_links_to_its_report(agency, client):
    client.force_login(member(agency).user)
    body = client.get(reverse("business_detail", args=["northwind", 100])).content.decode()
    assert 'href="/t/northwind/reports/?business=100"' in body


@pytest.mark.parametrize(("params", "field"), [
    ({"from": "2026-03-31", "to": "2026-03-01"}, "from"),
    ({"from": "2026-03-01", "to": "2099-01-01"}, "to"),
    ({"from": "2024-01-01", "to": "2026-03-31"}, "from"),
    ({"from": "31/03/2026", "to": "2026-03-31"}, "from"),
    ({"from": "2026-03-01"}, "to"),
    ({"period": "next_year"}, "period"),
    ({**PERIOD, "business": 4242}, "business"),
    ({**PERIOD, "business": "abc"}, "business"),
    ({**PERIOD, "colour": "red"}, "colour"),
])
def test_a_bad_period_or_client_is_a_400_naming_the_field(agency, client, params, field):
    viewer = member(agency)
    for url in (SUMMARY, RENDER):
        response = token_client(viewer).get(url, params)
        assert response.status_code == 400, (url, response.content)
        assert field in response.json()["fields"], response.json()
    if field == "colour":
        return  # the page ignores what it does not know
    client.force_login(viewer.user)
    page = client.get(reverse("report", args=["northwind"]), params)
    assert page.status_code == 200 and page.context["report"] is None
    assert page.context["form"].errors[field]
    pdf = client.get(reverse("report_pdf", args=["northwind"]), params)
    assert pdf.status_code == 400 and pdf["Content-Type"].startswith("text/html")


def test_the_period_rules():
    today = timezone.localdate()
    assert period_check(date_from=today, date_to=today) == (today, today)
    longest = today - dt.timedelta(days=MAX_PERIOD_DAYS - 1)
    assert period_check(date_from=longest, date_to=today) == (longest, today)
    with pytest.raises(Exception, match="at most 366 days"):
        period_check(date_from=longest - dt.timedelta(days=1), date_to=today)
    assert preset_period("last_month", today=dt.date(2026, 1, 15)) == (
        dt.date(2025, 12, 1), dt.date(2025, 12, 31))
    assert preset_period("this_month", today=dt.date(2026, 1, 15)) == (
        dt.date(2026, 1, 1), dt.date(2026, 1, 15))
    assert preset_period("last_quarter", today=dt.date(2026, 5, 2)) == (
        dt.date(2026, 1, 1), dt.date(2026, 3, 31))
    assert chart_interval(FROM, TO) == "day"
    assert chart_interval(dt.date(2026, 1, 1), TO) == "week"
    assert chart_interval(dt.date(2025, 4, 1), TO) == "month"


def test_a_client_without_history_has_a_report_that_says_so(agency):
    with tenant_scope(agency["reseller"]):
        report = report_build(tenant=agency["reseller"], membership=None,
                              business=agency["other"], date_from=FROM, date_to=TO)
        rendered = report_render(tenant=agency["reseller"], business=agency["other"],
                                 date_from=FROM, date_to=TO)
    assert report.points == [] and report.reviews is None and report.last_day is None
    assert report.locations.count == 1 and report.late.count == 1
    text = pdf_text(rendered.pdf)
    assert "Nothing was recorded in this period." in text
    assert "No review counts were recorded in this period." in text


def test_the_queries_do_not_grow_with_the_clients_rows(agency, client):
    client.force_login(member(agency).user)
    url = reverse("report", args=["northwind"])

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url, {**PERIOD, "business": 100}).status_code == 200
        return len(queries)

    before = count()
    for n in range(5):
        shop = BusinessFactory(reseller=agency["reseller"], remote_id=110 + n, depth=1,
                               parent=agency["brand"], tree_path=f"/100/{110 + n}/")
        status_report(shop, total=10, synced=2, submitted=0, need=8, needs_action=True)
        late_site(shop, 226, "Search Engine", "Submitted", days=30)
        version(shop, 1, "Hours", FROM)
    assert count() == before

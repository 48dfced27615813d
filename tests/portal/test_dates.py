"""One way to write a date on every page: "Nov 23, 2026, 19:20 CET", in the member's own zone
with the zone named (pages wrote "Nov 23, 2026 19:20", "2026-11-23 19:18" and the provider's
"11/23/2026 07:00:00" with no zone at all)."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent, Membership, Role, SyncRun
from listings import tasks as listing_tasks
from listings.models import Answer, ListingStatusReport, Question
from portal.tenancy import tenant_scope
from sandbox.seeding import seed_partner
from tests.accounts.ui_factories import StatusReportFactory, SyncRunFactory
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

ROOT = Path(django_settings.BASE_DIR)
MOMENT = dt.datetime(2026, 11, 23, 18, 20, 5, tzinfo=dt.UTC)  # a Monday, winter time

# Each member's zone, and how MOMENT reads there.
ZONES = {
    "Europe/Paris": ("Nov 23, 2026, 19:20 CET", "2026-11-23T19:20:05+01:00"),
    "America/New_York": ("Nov 23, 2026, 13:20 EST", "2026-11-23T13:20:05-05:00"),
    "": ("Nov 23, 2026, 18:20 UTC", "2026-11-23T18:20:05+00:00"),  # the portal's zone
}


@pytest.fixture
def portal_in_utc(settings):
    settings.TIME_ZONE = "UTC"


def member(reseller, zone, role=Role.OWNER):
    membership = MembershipFactory(reseller=reseller, role=role)
    membership.user.time_zone = zone
    membership.user.save(update_fields=["time_zone"])
    return membership


def run_at_moment(reseller):
    """A sync run of the reseller's, started at MOMENT."""
    SyncRunFactory(reseller=reseller)
    SyncRun.unscoped.filter(reseller=reseller).update(created_at=MOMENT)


def page_of(client, membership, url):
    client.force_login(membership.user)
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("zone", list(ZONES))
def test_pages_show_moments_in_the_members_zone_with_the_zone_named(client, portal_in_utc,
                                                                    zone):
    reseller = ResellerFactory()
    membership = member(reseller, zone)
    run_at_moment(reseller)
    AuditEvent.unscoped.create(reseller=reseller, action="member.invited", created_at=MOMENT)
    slug = reseller.slug
    text, iso = ZONES[zone]

    runs = page_of(client, membership, reverse("sync_run_list", args=[slug]))
    assert f'<time datetime="{iso}"' in runs and text in runs
    run = SyncRun.unscoped.get(reseller=reseller)
    assert text in page_of(client, membership, reverse("sync_run_detail", args=[slug, run.pk]))
    assert text in page_of(client, membership, reverse("tenant_home", args=[slug]))
    # The log keeps its seconds: several of its lines often share a minute.
    audit = page_of(client, membership, reverse("settings_audit", args=[slug]))
    assert text.replace(":20 ", ":20:05 ") in audit
    for old in ("2026-11-23 ", "Nov 23, 2026 1", "11/23/2026"):
        assert old not in runs + audit, old


@pytest.mark.django_db
def test_two_members_of_one_agency_read_the_same_moment_each_in_their_zone(client,
                                                                           portal_in_utc):
    reseller = ResellerFactory()
    paris, new_york = member(reseller, "Europe/Paris"), member(reseller, "America/New_York")
    run_at_moment(reseller)
    url = reverse("sync_run_list", args=[reseller.slug])
    assert ZONES["Europe/Paris"][0] in page_of(client, paris, url)
    page = page_of(client, new_york, url)
    assert ZONES["America/New_York"][0] in page and ZONES["Europe/Paris"][0] not in page


@pytest.mark.django_db
def test_provider_texts_are_shown_like_every_other_date(client, portal_in_utc):
    """The status report's lastUpdated (MM/DD/YYYY HH:mm:ss, UTC) was shown as it came; Q&A
    dates as "Jan 02, 2026 10:00 AM"."""
    reseller = ResellerFactory()
    membership = member(reseller, "Europe/Paris")
    business = BusinessFactory(reseller=reseller)
    StatusReportFactory(business=business)
    ListingStatusReport.unscoped.filter(business=business).update(
        last_updated_text="11/23/2026 07:00:00")
    question = Question.unscoped.create(
        reseller=reseller, business=business, remote_id=1, question="Parking?",
        updated_on="Jan 02, 2026", time="10:00 PM", answer_count=1)
    Answer.unscoped.create(reseller=reseller, question=question, remote_id=2, answer="Yes",
                           updated_on="Jan 03, 2026", time="09:05 AM")
    args = [reseller.slug, business.remote_id]

    detail = page_of(client, membership, reverse("business_detail", args=args))
    assert '<time datetime="2026-11-23T08:00:00+01:00"' in detail
    assert "Nov 23, 2026, 08:00 CET" in detail and "11/23/2026" not in detail
    qna = page_of(client, membership, reverse("business_qna", args=args))
    assert "Jan 2, 2026, 23:00 CET" in qna and "Jan 3, 2026, 10:05 CET" in qna
    assert "10:00 PM" not in qna and "Jan 02, 2026" not in qna


@pytest.mark.django_db
def test_days_without_a_time_have_no_zone_and_the_same_month_day_year(client, portal_in_utc):
    reseller = ResellerFactory()
    membership = member(reseller, "America/New_York")
    slug = reseller.slug
    # Joined at 02:00 UTC on the 24th: still the 23rd in New York.
    Membership.unscoped.filter(pk=membership.pk).update(
        created_at=dt.datetime(2026, 11, 24, 2, 0, tzinfo=dt.UTC))
    members = page_of(client, membership, reverse("settings_members", args=[slug]))
    assert '<time datetime="2026-11-23">Nov 23, 2026</time>' in members


@pytest.mark.django_db
def test_an_unknown_stored_zone_falls_back_to_the_portals(client, portal_in_utc):
    reseller = ResellerFactory()
    membership = member(reseller, "Mars/Olympus_Mons")
    run_at_moment(reseller)
    page = page_of(client, membership, reverse("sync_run_list", args=[reseller.slug]))
    assert ZONES[""][0] in page


@pytest.mark.django_db
def test_the_api_keeps_the_portals_zone_and_nothing_stays_active(client, portal_in_utc):
    """A session and a token of one member get the same offsets from the API."""
    reseller = ResellerFactory()
    membership = member(reseller, "Europe/Paris")
    run_at_moment(reseller)
    client.force_login(membership.user)
    body = client.get(reverse("api_sync_run_list", args=[reseller.slug])).content.decode()
    assert "2026-11-23T18:20:05" in body and "+01:00" not in body
    client.get(reverse("sync_run_list", args=[reseller.slug]))
    assert timezone.get_current_timezone_name() == "UTC"


# -- the filters, and Django's own rendering ----------------------------------------------------


def render(source, **context):
    return Template("{% load portal_tags %}" + source).render(Context(context))


def test_the_filters_and_djangos_default_rendering_agree(settings):
    settings.TIME_ZONE = "UTC"
    with timezone.override("Asia/Tokyo"):
        assert render("{{ v|when }}", v=MOMENT) == (
            '<time datetime="2026-11-24T03:20:05+09:00" title="Time zone: Asia/Tokyo">'
            "Nov 24, 2026, 03:20 JST</time>")
        assert render("{{ v|day }}", v=MOMENT) == (
            '<time datetime="2026-11-24">Nov 24, 2026</time>')
        assert render("{{ v }}", v=MOMENT) == "Nov 24, 2026, 03:20 JST"
        assert render("{{ v }}", v=MOMENT.date()) == "Nov 23, 2026"
    assert render("{{ v|when|default:'—' }}", v=None) == "—"
    assert render("{{ v|when }}", v=dt.date(2026, 1, 2)) == (
        '<time datetime="2026-01-02">Jan 2, 2026</time>')
    assert render("{{ v|when }}", v="<b>as sent</b>") == "&lt;b&gt;as sent&lt;/b&gt;"


# -- no fourth format ---------------------------------------------------------------------------

# Any filter that writes a date by a format of its own; `when` and `day` are the one way.
OWN_FORMAT = re.compile(r"\|\s*(?:date|time)\b")
CLIENT_FORMAT = re.compile(r"toLocale(?:Date|Time)?String|Intl\.DateTimeFormat|new Date\(")


def test_no_template_or_script_writes_a_date_its_own_way():
    offenders = []
    for path in ROOT.glob("**/templates/**/*.html"):
        if ".venv" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if OWN_FORMAT.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    for path in ROOT.glob("*/static/**/*.js"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if CLIENT_FORMAT.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "write dates with |when or |day:\n" + "\n".join(offenders)


# -- through the sandbox ------------------------------------------------------------------------

KEY = "dates-test-partner-key"


@pytest.mark.django_db(transaction=True)
def test_the_providers_last_update_of_a_refreshed_report_reads_in_the_members_zone(
        live_server, settings, tmp_path, client, monkeypatch, fast_provider):
    settings.TIME_ZONE = "UTC"
    result = seed_partner(api_key=KEY, locations=1, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=result["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    location = BusinessFactory(reseller=reseller, remote_id=result["location_numbers"][0])
    membership = member(reseller, "America/Los_Angeles", role=Role.MANAGER)
    task = listing_tasks.listing_status_refresh_task
    monkeypatch.setattr(task, "delay", lambda **kwargs: task.apply(kwargs=kwargs))
    client.force_login(membership.user)
    url = reverse("business_detail", args=[reseller.slug, location.remote_id])
    page = client.post(url, follow=True).content.decode()
    with tenant_scope(reseller):
        sent = ListingStatusReport.objects.get(business=location).last_updated_text
    assert re.fullmatch(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d", sent)  # as the provider writes it
    moment = dt.datetime.strptime(sent, "%m/%d/%Y %H:%M:%S").replace(tzinfo=dt.UTC)
    local = moment.astimezone(zoneinfo.ZoneInfo("America/Los_Angeles"))
    shown = re.search(r"Provider's last update</dt><dd>(<time [^>]+>[^<]+</time>)", page)
    assert shown, page[page.find("Last refreshed"):][:400]
    assert shown.group(1).startswith(f'<time datetime="{local.isoformat()}"')
    assert re.search(r">\w{3} \d{1,2}, \d{4}, \d\d:\d\d P[SD]T</time>$", shown.group(1))
    assert sent not in page

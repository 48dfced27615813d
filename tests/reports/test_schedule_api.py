"""The report schedules API: list, create, delete; the reports sent and their PDFs; 400 naming
the field, 403 for a viewer's writes, 404 for another reseller's ids; the agency's time zone in
the connection settings."""

from __future__ import annotations

import pytest

from accounts.models import AuditEvent, Reseller, Role
from portal.tenancy import tenant_scope
from reports import schedules
from reports.models import ReportSchedule, SentReport
from tests.factories import BusinessFactory, ResellerFactory, token_client
from tests.reports import schedule_helpers
from tests.reports.schedule_helpers import utc
from tests.security.world import report_schedule_rows

pytestmark = pytest.mark.django_db

agency = schedule_helpers.agency  # the fixture, shared by the schedule tests

BODY = {"business_number": 100, "frequency": "weekly", "weekday": "monday", "hour": 7,
        "recipients": ["client@harbour.example"]}


def base(agency) -> str:
    return f"/api/v1/t/{agency.reseller.slug}"


def test_create_list_and_delete(agency):
    client = token_client(agency.manager)
    created = client.post(f"{base(agency)}/report-schedules/", BODY, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["business_number"] == 100 and body["business_name"] == "Harbour Burgers"
    assert body["frequency"] == "weekly" and body["weekday"] == "monday"
    assert body["day_of_month"] is None and body["hour"] == 7 and body["active"] is True
    assert body["time_zone"] == "Europe/Paris"
    assert body["next_send_local"].endswith(("T07:00:00+01:00", "T07:00:00+02:00"))
    assert AuditEvent.unscoped.filter(action="report_schedule.created").count() == 1

    listed = client.get(f"{base(agency)}/report-schedules/").json()
    assert [row["id"] for row in listed["results"]] == [body["id"]]
    detail = client.get(f"{base(agency)}/report-schedules/{body['id']}/")
    assert detail.status_code == 200 and detail.json()["recipients"] == BODY["recipients"]

    assert client.delete(f"{base(agency)}/report-schedules/{body['id']}/").status_code == 204
    assert not ReportSchedule.unscoped.filter(pk=body["id"]).exists()
    assert AuditEvent.unscoped.filter(action="report_schedule.deleted").count() == 1


@pytest.mark.parametrize(("change", "field"), [
    ({"frequency": "daily"}, "frequency"),
    ({"weekday": None}, "weekday"),
    ({"frequency": "monthly", "weekday": None}, "day_of_month"),
    ({"frequency": "monthly", "day_of_month": 29}, "day_of_month"),
    ({"hour": 24}, "hour"),
    ({"recipients": ["client@harbour.example", "nobody"]}, "recipients"),
    ({"recipients": []}, "recipients"),
    ({"business_number": 999}, "business_number"),
    ({"colour": "red"}, "colour"),
])
def test_bad_input_is_a_400_naming_the_field(agency, change, field):
    client = token_client(agency.manager)
    response = client.post(f"{base(agency)}/report-schedules/", {**BODY, **change},
                           format="json")
    assert response.status_code == 400, response.content
    fields = response.json()["fields"]
    assert any(key == field or key.startswith(f"{field}.") or key.startswith(f"{field}[")
               for key in fields), fields
    assert not ReportSchedule.unscoped.exists()


def test_viewers_read_but_may_not_write(agency):
    with tenant_scope(agency.reseller):
        schedule = schedules.schedule_create(
            tenant=agency.reseller, actor=None, membership=None, business_number=100,
            frequency="monthly", day_of_month=3, hour=9, recipients=["a@harbour.example"])
    client = token_client(agency.viewer)
    assert client.get(f"{base(agency)}/report-schedules/").status_code == 200
    assert client.post(f"{base(agency)}/report-schedules/", BODY,
                       format="json").status_code == 403
    assert client.delete(f"{base(agency)}/report-schedules/{schedule.pk}/").status_code == 403
    # A manager's token of viewer rank is a viewer too.
    narrowed = token_client(agency.manager, role=Role.VIEWER)
    assert narrowed.post(f"{base(agency)}/report-schedules/", BODY,
                         format="json").status_code == 403
    assert ReportSchedule.unscoped.count() == 1


def test_a_limited_member_sees_and_makes_those_of_their_subtree_only(agency):
    with tenant_scope(agency.reseller):
        for number in (None, agency.other.remote_id, agency.downtown.remote_id):
            schedules.schedule_create(tenant=agency.reseller, actor=None, membership=None,
                                      business_number=number, frequency="monthly",
                                      day_of_month=1, hour=8, recipients=["a@x.example"])
    client = token_client(agency.limited)
    listed = client.get(f"{base(agency)}/report-schedules/").json()["results"]
    assert [row["business_number"] for row in listed] == [agency.downtown.remote_id]
    for number in (None, agency.other.remote_id):
        response = client.post(f"{base(agency)}/report-schedules/",
                               {**BODY, "business_number": number}, format="json")
        assert response.status_code == 400 and "business_number" in response.json()["fields"]
    hidden = ReportSchedule.unscoped.get(business=agency.other)
    assert client.get(f"{base(agency)}/report-schedules/{hidden.pk}/").status_code == 404
    assert client.delete(f"{base(agency)}/report-schedules/{hidden.pk}/").status_code == 404
    assert client.post(f"{base(agency)}/report-schedules/", BODY,
                       format="json").status_code == 201


def test_sent_reports_and_their_pdfs(agency):
    rows = report_schedule_rows(agency.reseller, agency.brand, "Harbour")
    sent = rows["sent_report"]
    client = token_client(agency.viewer)
    listed = client.get(f"{base(agency)}/sent-reports/").json()["results"]
    assert [row["id"] for row in listed] == [sent.pk]
    assert listed[0]["state"] == "sent" and listed[0]["business_number"] == 100
    assert listed[0]["pdf"].endswith(f"/sent-reports/{sent.pk}/pdf/")
    pdf = client.get(f"{base(agency)}/sent-reports/{sent.pk}/pdf/")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdf.content == bytes(sent.pdf)
    # One still queued has no PDF yet.
    SentReport.unscoped.filter(pk=sent.pk).update(pdf=None, filename="", state="queued")
    assert client.get(f"{base(agency)}/sent-reports/{sent.pk}/pdf/").status_code == 404


def test_another_resellers_ids_are_not_found(agency):
    other = ResellerFactory()
    rows = report_schedule_rows(other, BusinessFactory(reseller=other), "Other")
    client = token_client(agency.owner)
    schedule, sent = rows["report_schedule"], rows["sent_report"]
    assert client.get(f"{base(agency)}/report-schedules/{schedule.pk}/").status_code == 404
    assert client.delete(f"{base(agency)}/report-schedules/{schedule.pk}/").status_code == 404
    assert client.get(f"{base(agency)}/sent-reports/{sent.pk}/pdf/").status_code == 404
    assert client.get(f"{base(agency)}/sent-reports/").json()["results"] == []
    assert ReportSchedule.unscoped.filter(pk=schedule.pk).exists()


def test_the_time_zone_in_the_connection_settings(agency):
    client = token_client(agency.owner)
    url = f"{base(agency)}/connection/"
    assert client.get(url).json()["time_zone"] == "Europe/Paris"
    response = client.patch(url, {"time_zone": "America/Chicago"}, format="json")
    assert response.status_code == 200 and response.json()["time_zone"] == "America/Chicago"
    assert Reseller.objects.get(pk=agency.reseller.pk).time_zone == "America/Chicago"
    wrong = client.patch(url, {"time_zone": "Mars/Base"}, format="json")
    assert wrong.status_code == 400 and "time_zone" in wrong.json()["fields"]
    assert client.patch(url, {"rate_limit": "auto"}, format="json").status_code == 200
    assert Reseller.objects.get(pk=agency.reseller.pk).time_zone == "America/Chicago"


def test_a_new_schedule_sends_at_the_hour_asked_in_the_agencys_zone(agency):
    client = token_client(agency.manager)
    created = client.post(f"{base(agency)}/report-schedules/",
                          {**BODY, "frequency": "monthly", "weekday": None, "day_of_month": 1,
                           "hour": 8}, format="json").json()
    schedule = ReportSchedule.unscoped.get(pk=created["id"])
    assert schedule.zone == "Europe/Paris"
    following = schedules.next_send_after(schedule, utc(2026, 1, 15))
    assert following == utc(2026, 2, 1, 7)

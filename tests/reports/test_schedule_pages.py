"""The schedule pages: the list, a new schedule with its preview, changing, deleting, "send
now", the history with its PDFs; who may do what; the agency's time zone in its settings."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from accounts.models import Reseller
from portal.tenancy import tenant_scope
from reports import schedules
from reports.models import ReportSchedule, SentReport
from tests.factories import BusinessFactory, ResellerFactory
from tests.reports import schedule_helpers
from tests.reports.schedule_helpers import PRODUCT_NAME, utc
from tests.security.world import report_schedule_rows

pytestmark = pytest.mark.django_db

agency = schedule_helpers.agency  # the fixture, shared by the schedule tests

FORM = {"business": "100", "frequency": "monthly", "day_of_month": "1", "weekday": "",
        "hour": "8", "recipients": "client@harbour.example, staff@riverside.example",
        "active": "on"}


def url(agency, name, *args) -> str:
    return reverse(name, args=[agency.reseller.slug, *args])


def signed_in(client, membership):
    client.force_login(membership.user)
    return client


def make(agency, membership=None, **values) -> ReportSchedule:
    membership = membership or agency.manager
    fields = {"business_number": agency.brand.remote_id, "frequency": "monthly",
              "day_of_month": 1, "hour": 8, "recipients": ["client@harbour.example"]}
    fields.update(values)
    with tenant_scope(agency.reseller):
        return schedules.schedule_create(tenant=agency.reseller, actor=membership.user,
                                         membership=membership, now=utc(2026, 1, 15), **fields)


def test_a_manager_makes_a_schedule_and_sees_it_listed(agency, client):
    signed_in(client, agency.manager)
    page = client.get(url(agency, "report_schedule_new"))
    assert page.status_code == 200
    body = page.content.decode()
    assert "Europe/Paris" in body and "Preview the report" in body
    response = client.post(url(agency, "report_schedule_new"), FORM, follow=True)
    assert response.status_code == 200
    schedule = ReportSchedule.unscoped.get(reseller=agency.reseller)
    assert (schedule.business, schedule.frequency, schedule.day_of_month, schedule.hour) == (
        agency.brand, "monthly", 1, 8)
    assert schedule.recipients == ["client@harbour.example", "staff@riverside.example"]
    assert schedule.next_send_at is not None and schedule.created_by == agency.manager.user
    listed = response.content.decode()
    assert "Saved the schedule of Harbour Burgers" in listed
    assert "Monthly: the 1st of each month at 08:00" in listed
    assert "client@harbour.example, staff@riverside.example" in listed
    assert "Send now" in listed


def test_bad_input_is_named_next_to_its_field(agency, client):
    signed_in(client, agency.manager)
    response = client.post(url(agency, "report_schedule_new"),
                           {**FORM, "frequency": "weekly", "weekday": "",
                            "recipients": "client@harbour.example, not-an-address"})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert "weekday" in errors and "not-an-address" in str(errors["recipients"])
    response = client.post(url(agency, "report_schedule_new"), {**FORM, "business": "999"})
    assert response.status_code == 400 and "business" in response.context["form"].errors
    assert not ReportSchedule.unscoped.exists()


def test_the_preview_is_the_pdf_of_the_first_period_and_saves_nothing(agency, client):
    signed_in(client, agency.manager)
    response = client.post(url(agency, "report_schedule_preview"), FORM)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("inline;")
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)
    assert PRODUCT_NAME in text
    assert not ReportSchedule.unscoped.exists() and not SentReport.unscoped.exists()
    # A form that cannot be previewed says why.
    wrong = client.post(url(agency, "report_schedule_preview"), {**FORM, "hour": "25"})
    assert wrong.status_code == 400 and "Hour" in wrong.content.decode()
    assert client.get(url(agency, "report_schedule_preview")).status_code == 302


def test_the_preview_period_is_the_first_sends(agency):
    values = schedules.ScheduleValues(business=None, frequency="monthly", weekday=None,
                                      day_of_month=1, hour=8, recipients=[])
    preview = schedules.schedule_preview_period(tenant=agency.reseller, values=values,
                                                now=utc(2026, 1, 15, 12))
    assert preview.first_send_at == utc(2026, 2, 1, 7)
    # January is still running on the 15th: the preview shows it so far.
    assert (preview.period_start, preview.period_end) == (utc(2026, 1, 1).date(),
                                                          utc(2026, 1, 31).date())
    assert preview.shown_end == utc(2026, 1, 15).date()


def test_viewers_read_and_download_but_change_nothing(agency, client):
    schedule = make(agency)
    with tenant_scope(agency.reseller):
        row = schedules.schedule_send_now(tenant=agency.reseller, actor=None,
                                          schedule=schedule, now=utc(2026, 2, 10))
        SentReport.unscoped.filter(pk=row.pk).update(pdf=b"%PDF-1.4 test", filename="r.pdf",
                                                     state="sent")
    signed_in(client, agency.viewer)
    listed = client.get(url(agency, "report_schedule_list")).content.decode()
    assert "Harbour Burgers" in listed and "Send now" not in listed
    detail = client.get(url(agency, "report_schedule_edit", schedule.pk))
    assert detail.status_code == 200 and "<fieldset disabled>" in detail.content.decode()
    assert client.get(url(agency, "sent_report_list")).status_code == 200
    pdf = client.get(url(agency, "sent_report_pdf", row.pk))
    assert pdf.status_code == 200 and pdf.content == b"%PDF-1.4 test"
    for name, args in (("report_schedule_new", ()), ("report_schedule_edit", (schedule.pk,)),
                       ("report_schedule_delete", (schedule.pk,)),
                       ("report_schedule_send_now", (schedule.pk,)),
                       ("report_schedule_preview", ())):
        assert client.post(url(agency, name, *args), FORM).status_code == 403, name
    assert ReportSchedule.unscoped.filter(pk=schedule.pk).exists()


def test_a_limited_member_schedules_only_within_their_subtree(agency, client):
    account_wide = make(agency, business_number=None)
    elsewhere = make(agency, business_number=agency.other.remote_id)
    own = make(agency, business_number=agency.downtown.remote_id)
    signed_in(client, agency.limited)
    listed = client.get(url(agency, "report_schedule_list")).content.decode()
    assert "Harbour Downtown" in listed
    assert "Hill Cafe" not in listed and "The whole account" not in listed
    for schedule in (account_wide, elsewhere):
        assert client.get(url(agency, "report_schedule_edit", schedule.pk)).status_code == 404
        assert client.post(url(agency, "report_schedule_send_now",
                               schedule.pk)).status_code == 404
        assert client.post(url(agency, "report_schedule_delete",
                               schedule.pk)).status_code == 404
    assert client.get(url(agency, "report_schedule_edit", own.pk)).status_code == 200

    for business in ("200", ""):  # outside the subtree; the whole account
        response = client.post(url(agency, "report_schedule_new"), {**FORM, "business": business})
        assert response.status_code == 400, business
        assert "business" in response.context["form"].errors
        preview = client.post(url(agency, "report_schedule_preview"),
                              {**FORM, "business": business})
        assert preview.status_code == 400, business
    assert client.post(url(agency, "report_schedule_new"), FORM).status_code == 302
    assert ReportSchedule.unscoped.filter(business=agency.brand).count() == 1


def test_changing_deleting_and_sending_now(agency, client, django_capture_on_commit_callbacks):
    schedule = make(agency)
    signed_in(client, agency.manager)
    response = client.post(url(agency, "report_schedule_edit", schedule.pk),
                           {**FORM, "frequency": "weekly", "weekday": "4", "hour": "17"})
    assert response.status_code == 302
    schedule.refresh_from_db()
    assert (schedule.frequency, schedule.weekday, schedule.day_of_month, schedule.hour) == (
        "weekly", 4, None, 17)

    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(url(agency, "report_schedule_send_now", schedule.pk))
    assert response.status_code == 302 and response["Location"] == url(agency,
                                                                       "sent_report_list")
    assert len(queued) == 1
    row = SentReport.unscoped.get(schedule=schedule)
    assert row.trigger == "manual" and row.state == "queued"
    history = client.get(url(agency, "sent_report_list")).content.decode()
    assert "Harbour Burgers" in history and "Queued" in history

    confirm = client.get(url(agency, "report_schedule_delete", schedule.pk))
    assert confirm.status_code == 200 and "Delete the schedule" in confirm.content.decode()
    assert client.post(url(agency, "report_schedule_delete", schedule.pk)).status_code == 302
    assert not ReportSchedule.unscoped.filter(pk=schedule.pk).exists()
    # The history keeps what was sent (a report sent now is still sent).
    row.refresh_from_db()
    assert row.schedule is None and row.state == "queued"


def test_another_resellers_schedules_and_reports_are_not_found(agency, client):
    other = ResellerFactory()
    rows = report_schedule_rows(other, BusinessFactory(reseller=other), "Other")
    signed_in(client, agency.owner)
    schedule, sent = rows["report_schedule"], rows["sent_report"]
    for name, pk in (("report_schedule_edit", schedule.pk), ("report_schedule_delete", schedule.pk),
                     ("sent_report_pdf", sent.pk)):
        assert client.get(url(agency, name, pk)).status_code == 404, name
    assert client.post(url(agency, "report_schedule_send_now", schedule.pk)).status_code == 404


def test_the_list_and_history_pages_take_a_fixed_number_of_queries(
        agency, client, django_assert_max_num_queries):
    for number in (agency.brand.remote_id, agency.downtown.remote_id, agency.other.remote_id):
        schedule = make(agency, business_number=number)
        with tenant_scope(agency.reseller):
            schedules.schedule_send_now(tenant=agency.reseller, actor=None, schedule=schedule,
                                        now=utc(2026, 2, 10))
    signed_in(client, agency.manager)
    with django_assert_max_num_queries(12):
        assert client.get(url(agency, "report_schedule_list")).status_code == 200
    with django_assert_max_num_queries(12):
        assert client.get(url(agency, "sent_report_list")).status_code == 200


def test_an_owner_sets_the_agencys_time_zone(agency, client):
    signed_in(client, agency.owner)
    page = client.get(url(agency, "settings_connection"))
    assert 'name="time_zone"' in page.content.decode()
    data = {"provider_base_url": agency.reseller.provider_base_url,
            "account_number": agency.reseller.account_number, "api_key": "",
            "wire_dialect": "neutral", "rate_limit_auto": "fixed", "rate_limit_count": "100",
            "rate_limit_seconds": "1", "time_zone": "Asia/Tokyo"}
    assert client.post(url(agency, "settings_connection"), data).status_code == 302
    assert Reseller.objects.get(pk=agency.reseller.pk).time_zone == "Asia/Tokyo"
    wrong = client.post(url(agency, "settings_connection"), {**data, "time_zone": "Mars/Base"})
    assert wrong.status_code == 400 and "time_zone" in wrong.context["form"].errors
    # A form without the field (an older page) keeps the zone.
    data.pop("time_zone")
    assert client.post(url(agency, "settings_connection"), data).status_code == 302
    assert Reseller.objects.get(pk=agency.reseller.pk).time_zone == "Asia/Tokyo"

"""Schedules send on the workers: once at their time in the reseller's time zone, with the PDF
attached in the reseller's brand; retried when sending fails; once however many workers run the
due task; never after the schedule is turned off or deleted. The clock is driven by passing
`now`, never by waiting."""

from __future__ import annotations

import io
import smtplib
import threading
from datetime import date, timedelta

import pytest
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend
from django.db import connection
from django.utils import timezone
from pypdf import PdfReader

from accounts.models import Reseller
from portal.celery import app
from portal.tenancy import tenant_scope
from reports import schedules, tasks
from reports.models import ReportSchedule, SentReport
from tests.reports import schedule_helpers
from tests.reports.schedule_helpers import PRODUCT_NAME, SENDER, utc

pytestmark = pytest.mark.django_db

agency = schedule_helpers.agency  # the fixture, shared by the schedule tests

RECIPIENTS = ["client@harbour.example", "staff@riverside.example"]


@pytest.fixture
def eager(settings):
    """Tasks run where they are queued; the email backend is Django's in-memory one."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def monthly(agency, *, now, **values) -> ReportSchedule:
    """The brand's report, the 1st of each month at 08:00 in Paris."""
    with tenant_scope(agency.reseller):
        return schedules.schedule_create(
            tenant=agency.reseller, actor=agency.manager.user, membership=agency.manager,
            business_number=agency.brand.remote_id, frequency="monthly", day_of_month=1,
            hour=8, recipients=RECIPIENTS, now=now, **values)


def claim(now, capture) -> list[SentReport]:
    """The beat task's claim at `now`, its sends run after the commit."""
    with capture(execute=True):
        return schedules.schedules_due_claim(now=now)


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_a_schedule_sends_once_at_its_time_in_the_resellers_zone(
        agency, eager, django_capture_on_commit_callbacks):
    schedule = monthly(agency, now=utc(2026, 1, 15, 12))
    # 08:00 in Paris on 1 February is 07:00 UTC.
    assert schedule.next_send_at == utc(2026, 2, 1, 7)

    assert claim(utc(2026, 2, 1, 6, 59), django_capture_on_commit_callbacks) == []
    assert mail.outbox == []

    sent = claim(utc(2026, 2, 1, 7, 2), django_capture_on_commit_callbacks)
    assert len(sent) == 1
    row = SentReport.unscoped.get(pk=sent[0].pk)
    assert row.state == SentReport.State.SENT and row.attempts == 1 and row.sent_at
    assert (row.period_start, row.period_end) == (date(2026, 1, 1), date(2026, 1, 31))
    assert row.business == agency.brand and row.recipients == RECIPIENTS

    # One email, from the agency's sender, with the PDF of January attached.
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.from_email == f"Riverside <{SENDER}>"
    assert message.to == RECIPIENTS
    assert message.reply_to == ["help@riverside.example"]
    assert PRODUCT_NAME in message.subject and "Harbour Burgers" in message.subject
    assert "1 January 2026 to 31 January 2026" in message.body
    pdfs = [a for a in message.attachments if a[2] == "application/pdf"]
    assert [name for name, _, _ in pdfs] == [row.filename]
    assert pdfs[0][1].startswith(b"%PDF") and bytes(row.pdf) == pdfs[0][1]
    assert PRODUCT_NAME in pdf_text(pdfs[0][1])
    html = message.alternatives[0][0]
    assert "Harbour Burgers" in html and PRODUCT_NAME in html

    # The next one is planned; the same moment, or a little later, sends nothing more.
    schedule.refresh_from_db()
    assert schedule.next_send_at == utc(2026, 3, 1, 7)
    assert claim(utc(2026, 2, 1, 7, 2), django_capture_on_commit_callbacks) == []
    assert claim(utc(2026, 2, 1, 7, 7), django_capture_on_commit_callbacks) == []
    assert len(mail.outbox) == 1
    assert SentReport.unscoped.filter(schedule=schedule).count() == 1


def test_the_same_period_found_due_again_is_not_stored_twice(agency):
    """A worker that read the schedule before another one moved it on: the unique row of the
    schedule's period refuses the second report."""
    schedule = monthly(agency, now=utc(2026, 1, 15))
    first = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))
    ReportSchedule.unscoped.filter(pk=schedule.pk).update(next_send_at=utc(2026, 2, 1, 7))
    again = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))
    assert len(first) == 1 and again == []
    assert SentReport.unscoped.filter(schedule=schedule).count() == 1
    schedule.refresh_from_db()
    assert schedule.next_send_at == utc(2026, 3, 1, 7)


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_send_once(agency):
    """Two workers run the due task at the same moment, each with its own connection."""
    if connection.vendor != "postgresql":
        pytest.skip("Concurrent writers need PostgreSQL (SQLite serialises them anyway).")
    schedule = monthly(agency, now=utc(2026, 1, 15))
    start = threading.Barrier(2)
    found: list[list] = []
    errors: list[BaseException] = []

    def worker():
        try:
            start.wait(timeout=10)
            found.append(schedules.schedules_due_claim(now=utc(2026, 2, 1, 7, 5)))
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert sorted(len(rows) for rows in found) == [0, 1]
    assert SentReport.unscoped.filter(schedule=schedule).count() == 1

    # And the row itself, sent by two workers at once, goes once.
    row = SentReport.unscoped.get(schedule=schedule)
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def sender():
        try:
            start.wait(timeout=10)
            reseller = Reseller.objects.get(pk=agency.reseller.pk)
            with tenant_scope(reseller):
                outcomes.append(schedules.sent_report_send(tenant=reseller,
                                                           sent_report_id=row.pk))
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    mail.outbox = []
    threads = [threading.Thread(target=sender) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(outcomes) == ["busy", "sent"] or sorted(outcomes) == ["sent", "sent"]
    assert len(mail.outbox) == 1
    assert SentReport.unscoped.get(pk=row.pk).attempts == 1


def test_a_sent_report_is_never_sent_again(agency, eager):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    row = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))[0]
    with tenant_scope(agency.reseller):
        assert schedules.sent_report_send(tenant=agency.reseller, sent_report_id=row.pk) == "sent"
        assert schedules.sent_report_send(tenant=agency.reseller, sent_report_id=row.pk) == "sent"
        # A worker sending it right now keeps the other one off.
        SentReport.unscoped.filter(pk=row.pk).update(state="sending", updated_at=timezone.now())
        assert schedules.sent_report_send(tenant=agency.reseller, sent_report_id=row.pk) == "busy"
    assert len(mail.outbox) == 1
    assert schedule.pk == row.schedule_id


class FlakyBackend(EmailBackend):
    """The mail server refuses the first `failures` emails, then takes them."""

    failures = 1

    def send_messages(self, messages):
        if FlakyBackend.failures > 0:
            FlakyBackend.failures -= 1
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(messages)


@pytest.fixture
def flaky(eager, settings):
    settings.EMAIL_BACKEND = f"{__name__}.FlakyBackend"
    FlakyBackend.failures = 1
    yield FlakyBackend
    FlakyBackend.failures = 0


def test_a_failed_send_is_retried_then_sent(agency, flaky, django_capture_on_commit_callbacks):
    monthly(agency, now=utc(2026, 1, 15))
    row = claim(utc(2026, 2, 1, 7, 3), django_capture_on_commit_callbacks)[0]
    row.refresh_from_db()
    assert row.state == SentReport.State.SENT
    assert row.attempts == 2 and row.last_error == ""
    assert len(mail.outbox) == 1


def test_the_error_is_kept_in_words_between_attempts(agency, flaky):
    monthly(agency, now=utc(2026, 1, 15))
    row = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))[0]
    with tenant_scope(agency.reseller), pytest.raises(schedules.SendFailed) as failed:
        schedules.sent_report_send(tenant=agency.reseller, sent_report_id=row.pk)
    assert not failed.value.final
    row.refresh_from_db()
    assert row.state == SentReport.State.QUEUED and row.attempts == 1
    assert row.last_error.startswith("The mail server did not take the email")
    # The PDF made for the first attempt is kept, and sent by the second.
    assert row.filename and bytes(row.pdf).startswith(b"%PDF")
    with tenant_scope(agency.reseller):
        assert schedules.sent_report_send(tenant=agency.reseller, sent_report_id=row.pk) == "sent"
    assert schedules.send_retry_delay(1) == 60 and schedules.send_retry_delay(3) == 240


def test_after_the_last_attempt_it_is_failed_and_told(agency, flaky, settings,
                                                      django_capture_on_commit_callbacks):
    settings.REPORTS_MAX_ATTEMPTS = 3
    flaky.failures = 10
    monthly(agency, now=utc(2026, 1, 15))
    row = claim(utc(2026, 2, 1, 7, 3), django_capture_on_commit_callbacks)[0]
    row.refresh_from_db()
    assert row.state == SentReport.State.FAILED and row.attempts == 3
    assert row.last_error.startswith("Gave up after 3 attempts. The mail server did not take")
    assert mail.outbox == []


def test_deleting_a_schedule_stops_its_sending(agency, eager, django_capture_on_commit_callbacks):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    queued = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))[0]  # not sent yet
    with tenant_scope(agency.reseller):
        schedules.schedule_delete(tenant=agency.reseller, actor=agency.manager.user,
                                  schedule=schedule)
        assert schedules.sent_report_send(tenant=agency.reseller,
                                          sent_report_id=queued.pk) == "cancelled"
    queued.refresh_from_db()
    assert queued.state == SentReport.State.CANCELLED and queued.schedule is None
    assert "deleted" in queued.last_error
    assert claim(utc(2026, 3, 1, 8), django_capture_on_commit_callbacks) == []
    assert mail.outbox == []


def test_a_schedule_turned_off_sends_nothing(agency, eager, django_capture_on_commit_callbacks):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    queued = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))[0]
    with tenant_scope(agency.reseller):
        schedules.schedule_update(
            tenant=agency.reseller, actor=agency.manager.user, membership=agency.manager,
            schedule=schedule, business_number=agency.brand.remote_id, frequency="monthly",
            day_of_month=1, hour=8, recipients=RECIPIENTS, active=False,
            now=utc(2026, 2, 1, 9))
        assert schedules.sent_report_send(tenant=agency.reseller,
                                          sent_report_id=queued.pk) == "cancelled"
    schedule.refresh_from_db()
    assert schedule.next_send_at is None
    assert claim(utc(2026, 3, 1, 8), django_capture_on_commit_callbacks) == []
    assert mail.outbox == []


def test_send_now_sends_the_last_complete_period_beside_the_scheduled_one(
        agency, eager, django_capture_on_commit_callbacks):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    with tenant_scope(agency.reseller), django_capture_on_commit_callbacks(execute=True):
        row = schedules.schedule_send_now(tenant=agency.reseller, actor=agency.manager.user,
                                          schedule=schedule, now=utc(2026, 1, 20))
    row.refresh_from_db()
    assert row.trigger == SentReport.Trigger.MANUAL and row.state == SentReport.State.SENT
    assert (row.period_start, row.period_end) == (date(2025, 12, 1), date(2025, 12, 31))
    # The schedule's own send still goes at its time.
    scheduled = claim(utc(2026, 2, 1, 7, 1), django_capture_on_commit_callbacks)
    assert len(scheduled) == 1 and len(mail.outbox) == 2
    assert mail.outbox[0].subject.startswith(f"{PRODUCT_NAME}: your report")


def test_workers_down_for_months_send_the_latest_period_once(agency):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    rows = schedules.schedules_due_claim(now=utc(2026, 4, 20))
    assert [(r.period_start, r.period_end) for r in rows] == [(date(2026, 3, 1),
                                                               date(2026, 3, 31))]
    schedule.refresh_from_db()
    assert schedule.next_send_at == utc(2026, 5, 1, 6)  # summer time in Paris
    assert schedules.schedules_due_claim(now=utc(2026, 4, 21)) == []


def test_a_new_time_zone_moves_the_next_send(agency):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    Reseller.objects.filter(pk=agency.reseller.pk).update(time_zone="America/New_York")
    assert schedules.schedules_due_claim(now=utc(2026, 2, 1, 8)) == []
    schedule.refresh_from_db()
    # 08:00 in New York on 1 February is 13:00 UTC.
    assert schedule.next_send_at == utc(2026, 2, 1, 13)
    assert schedule.zone == "America/New_York"


def test_a_report_left_behind_by_a_lost_task_is_sent_by_the_beat(agency, eager,
                                                                 django_capture_on_commit_callbacks):
    schedule = monthly(agency, now=utc(2026, 1, 15))
    row = schedules.schedules_due_claim(now=utc(2026, 2, 1, 8))[0]  # its task never ran
    # The beat runs at the real time: only the row left behind is due then.
    ReportSchedule.unscoped.filter(pk=schedule.pk).update(
        next_send_at=timezone.now() + timedelta(days=1))
    SentReport.unscoped.filter(pk=row.pk).update(
        updated_at=timezone.now() - timedelta(seconds=schedules.STALE_SECONDS + 60))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.report_schedules_due_task() >= 1
    row.refresh_from_db()
    assert row.state == SentReport.State.SENT and len(mail.outbox) == 1

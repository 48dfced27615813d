"""Report schedules in a real browser: an owner sets the brand's product name, opens the client
report, previews and schedules the client's monthly report, sends it now, and opens the PDF it
sent from the history: the agency's brand is in it. The pages fit a phone."""

from __future__ import annotations

import io

import pytest
from django.core import mail
from django.urls import reverse
from pypdf import PdfReader

from accounts.models import Business, Role
from reports.models import ReportSchedule, SentReport
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

PRODUCT_NAME = "Harbour Digital"


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_preview_schedule_send_now_and_open_the_sent_pdf(browser, live_server, eager_celery,
                                                          settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    reseller = ResellerFactory(name="Harbour Agency", time_zone="Europe/Paris")
    client = BusinessFactory(reseller=reseller, remote_id=100, name="Harbour Burgers",
                             type=Business.Type.ENTERPRISE_LOCATION, tree_path="/100/")
    BusinessFactory(reseller=reseller, remote_id=101, name="Harbour Downtown", parent=client,
                    depth=1, tree_path="/100/101/")
    owner = MembershipFactory(reseller=reseller, role=Role.OWNER)
    slug = reseller.slug
    base = live_server.url

    with viewport_page(browser, 1280, 860) as page:
        sign_in(page, base, owner)

        # The brand's product name, set in the settings.
        page.goto(f"{base}{reverse('settings_brand', args=[slug])}")
        page.get_by_label("Product name").fill(PRODUCT_NAME)
        page.get_by_role("button", name="Save").click()
        assert page.get_by_role("status").get_by_text("Saved the brand").is_visible()

        # The client report, then a new schedule of it.
        page.goto(f"{base}{reverse('report', args=[slug])}")
        assert page.locator("h1").first.is_visible()
        page.goto(f"{base}{reverse('report_schedule_new', args=[slug])}")
        assert "Europe/Paris" in page.inner_text("main")
        page.get_by_label("Client (business number)").fill("100")
        page.get_by_label("Frequency").select_option("monthly")
        page.get_by_label("Day of the month (monthly)").fill("1")
        page.get_by_label("Hour").select_option("8")
        page.get_by_label("Send to").fill("client@harbour.example\nstaff@harbour.example")

        # The preview: the PDF of the period the first send covers, in a tab of its own.
        preview_url = reverse("report_schedule_preview", args=[slug])
        with page.context.expect_event(
                "response", predicate=lambda r: r.url.endswith(preview_url)) as answered:
            page.get_by_role("button", name="Preview the report").click()
        response = answered.value
        assert response.status == 200
        assert response.headers["content-type"] == "application/pdf"
        assert not ReportSchedule.unscoped.exists()

        page.get_by_role("button", name="Schedule it").click()
        page.wait_for_url(f"**{reverse('report_schedule_list', args=[slug])}")
        assert page.get_by_role("status").get_by_text("Saved the schedule of Harbour Burgers")\
            .is_visible()
        row = page.locator("tbody tr", has_text="Harbour Burgers")
        assert "the 1st of each month at 08:00" in row.inner_text()

        # Send now: the last complete month, at once (the workers run in the request here).
        row.get_by_role("button", name="Send now").click()
        page.wait_for_url(f"**{reverse('sent_report_list', args=[slug])}")
        sent = SentReport.unscoped.get(reseller=reseller)
        assert sent.state == SentReport.State.SENT, sent.last_error
        history = page.locator("tbody tr", has_text="Harbour Burgers")
        assert "Sent" in history.inner_text()

        # The PDF it sent, opened from the history: in the agency's brand.
        link = history.get_by_role("link", name=sent.filename)
        assert link.get_attribute("target") == "_blank"
        opened = page.context.request.get(f"{base}{link.get_attribute('href')}")
        assert opened.status == 200 and opened.headers["content-type"] == "application/pdf"
        assert PRODUCT_NAME in pdf_text(opened.body())
        assert opened.body() == bytes(sent.pdf)

    assert len(mail.outbox) == 1
    assert PRODUCT_NAME in mail.outbox[0].subject
    assert [a[0] for a in mail.outbox[0].attachments if a[2] == "application/pdf"] == [
        sent.filename]

    with viewport_page(browser, 390, 844) as phone:
        sign_in(phone, base, owner)
        schedule = ReportSchedule.unscoped.get(reseller=reseller)
        for name, args in (("report_schedule_list", ()), ("report_schedule_new", ()),
                           ("report_schedule_edit", (schedule.pk,)),
                           ("sent_report_list", ()),
                           ("report_schedule_delete", (schedule.pk,))):
            phone.goto(f"{base}{reverse(name, args=[slug, *args])}")
            assert_fits(phone, name)

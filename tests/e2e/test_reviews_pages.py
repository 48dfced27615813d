"""The review pages in a real browser against the live sandbox, at phone width (390 px) and at
1366 px: the ranking of an enterprise picked on the page, survey follow and unfollow, and
sources and question types in words."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from accounts.models import Role
from portal.tenancy import tenant_scope
from reviews_app.models import Survey, SurveyResponse
from reviews_app.services import survey_add
from sandbox import models as sandbox
from tests.e2e.conftest import assert_fits, sign_in, viewport_page
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "reviews-pages-browser-key-5151"
MADE_UP = 999999999
WIDTHS = [{"width": 390, "height": 844}, {"width": 1366, "height": 900}]


@pytest.fixture
def manager(sandbox_reseller):
    reseller, seeded = sandbox_reseller(KEY, locations=12, seed=5, name="Demo Agency",
                                        rate_limit_count=1000)
    with tenant_scope(reseller):
        for survey_id in seeded["survey_ids"]:
            survey_add(tenant=reseller, actor=None, remote_id=survey_id)
        survey_add(tenant=reseller, actor=None, remote_id=MADE_UP)  # since deleted
    call_command("sync", reseller.slug, "--json", stdout=io.StringIO(), stderr=io.StringIO())
    return MembershipFactory(reseller=reseller, role=Role.MANAGER)


@pytest.mark.parametrize("viewport", WIDTHS, ids=lambda v: f"{v['width']}px")
def test_review_pages_fit_and_speak_in_words(live_server, browser, manager, viewport):
    with viewport_page(browser, **viewport) as page:
        reseller = manager.reseller
        base = f"{live_server.url}/t/{reseller.slug}"
        sign_in(page, live_server.url, manager)

        # The ranking opens on an enterprise; another one is picked and stays in the address.
        enterprises = list(sandbox.Business.objects.filter(type__startswith="Enterprise")
                           .order_by("name").values_list("number", "name"))
        page.goto(f"{base}/reports/ranking/")
        expect(page.locator("h1")).to_contain_text(enterprises[0][1])
        expect(page.locator("body")).not_to_contain_text("(you)")
        assert_fits(page, "ranking")
        page.get_by_label("Ranking of").select_option(str(enterprises[3][0]))
        page.get_by_role("button", name="Show").click()
        page.wait_for_url(re.compile(rf"business={enterprises[3][0]}"))
        expect(page.locator("h1")).to_contain_text(enterprises[3][1])
        expect(page.locator("tr.highlight")).to_contain_text("this brand")
        assert_fits(page, "ranking of another enterprise")
        page.get_by_label("Ranking of").select_option(str(reseller.account_number))
        page.get_by_role("button", name="Show").click()
        expect(page.locator("tr.highlight")).to_contain_text("Demo Agency")
        assert_fits(page, "ranking of the account")

        # Competitor sources in words, in the filter and the table.
        page.goto(f"{base}/reports/competitors/")
        options = page.get_by_label("Source").locator("option").all_inner_texts()
        assert "Business profile" in options and "profile" not in options
        assert_fits(page, "competitor metrics")

        # The survey the provider no longer knows: said, and unfollowed after a confirmation.
        page.goto(f"{base}/reports/surveys/")
        warning = page.locator(".message.warning")
        expect(warning).to_contain_text(f"no longer knows survey Survey {MADE_UP}")
        assert_fits(page, "survey responses")
        page.get_by_role("link", name="Answers").first.click()
        expect(page.locator(".answers")).to_contain_text("Single choice")
        assert_fits(page, "survey response")
        page.goto(f"{base}/reports/surveys/")
        warning.get_by_role("link", name="Unfollow it…").click()
        expect(page.locator("h1")).to_contain_text(f"Unfollow Survey {MADE_UP} ({MADE_UP})?")
        assert_fits(page, "unfollow confirmation")
        page.get_by_role("button", name="Unfollow survey").click()
        expect(page.locator(".messages")).to_contain_text("is no longer followed")
        expect(page.locator(".message.warning")).to_have_count(0)
        assert not Survey.unscoped.filter(reseller=reseller, remote_id=MADE_UP).exists()

        # Following a made-up id: the field says why, and what was typed stays.
        page.get_by_label("Survey id").fill(str(MADE_UP))
        page.get_by_label("Name").fill("Exit poll")
        page.get_by_role("button", name="Follow survey").click()
        expect(page.locator("#add")).to_contain_text(
            f"No survey with id {MADE_UP} in your provider account.")
        expect(page.get_by_label("Name")).to_have_value("Exit poll")
        assert_fits(page, "survey follow error")
        assert SurveyResponse.unscoped.filter(reseller=reseller).exists()

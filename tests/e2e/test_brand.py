"""The agency's brand in a real browser: an owner sets it in the settings (the preview follows
what they type, a colour without enough contrast is refused next to its field), sees it in the
header at desktop and phone widths, and the agency's own address shows it on its sign-in page,
lets its members in and sends anyone else to the main address."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from accounts.brand_services import brand_logo_set, brand_update
from accounts.models import Role
from tests.accounts.test_brand_logo import picture
from tests.e2e.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    assert_fits,
    sign_in,
    viewport_page,
)
from tests.factories import DEFAULT_PASSWORD, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

HOST = "portal.agency.example"
HEADER = "rgb(11, 61, 46)"  # #0b3d2e


@pytest.fixture
def hosts(settings, live_server):
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver", HOST]
    settings.PORTAL_PUBLIC_URL = live_server.url
    return live_server.url


@pytest.fixture
def host_browser(browser):
    """A browser that finds the agency's address on this machine, as its DNS record would."""
    other = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"])
    yield other
    other.close()


def header_colour(page) -> str:
    return page.eval_on_selector(".topbar", "el => getComputedStyle(el).backgroundColor")


def logo_shown(page) -> bool:
    return page.eval_on_selector(".topbar img.brand-logo",
                                 "img => img.complete && img.naturalWidth > 0")


def test_an_owner_sets_the_brand_and_sees_it_in_the_header(hosts, browser):
    owner = MembershipFactory(role=Role.OWNER, reseller=ResellerFactory(name="Harbour Agency"))
    brand_page = reverse("settings_brand", args=[owner.reseller.slug])
    with viewport_page(browser, 1366, 900) as page:
        violations = []
        page.on("console", lambda message: violations.append(message.text)
                if "Content Security Policy" in message.text else None)
        sign_in(page, hosts, owner)
        assert page.locator(".topbar .brand").inner_text() == "Reseller portal"
        page.get_by_role("link", name="Settings").click()
        page.get_by_role("link", name="Brand").click()
        page.wait_for_url(f"**{brand_page}")

        # The preview follows what is typed, and says at once when a colour is unreadable.
        page.get_by_label("Product name").fill("Riverside Digital")
        page.get_by_label("Header colour", exact=True).fill("#ffcc00")
        assert page.locator("#brand-preview-name").inner_text() == "Riverside Digital"
        assert page.eval_on_selector(".brand-preview-bar", "el => getComputedStyle(el)"
                                     ".backgroundColor") == "rgb(255, 204, 0)"
        assert "under the 4.5:1 needed" in page.locator("#id_primary_colour_contrast").inner_text()
        page.get_by_label("Accent colour", exact=True).fill("#8a2be2")
        page.get_by_label("Support email").fill("help@riverside.example")
        page.get_by_label("Own address (host name)").fill(HOST)
        page.get_by_role("button", name="Save").click()
        # The server refuses it next to the field, and keeps everything typed.
        error = page.locator(".field.has-error")
        assert "at least 4.5:1" in error.inner_text() and "Header colour" in error.inner_text()
        assert page.get_by_label("Product name").input_value() == "Riverside Digital"
        assert page.get_by_label("Own address (host name)").input_value() == HOST
        assert page.locator(".topbar .brand").inner_text() == "Reseller portal"

        page.get_by_label("Header colour", exact=True).fill("#0b3d2e")
        assert "readable" in page.locator("#id_primary_colour_contrast").inner_text()
        page.get_by_role("button", name="Save").click()
        assert page.get_by_role("status").get_by_text("Saved the brand").is_visible()
        page.set_input_files("#id_logo", files=[{"name": "logo.png", "mimeType": "image/png",
                                                 "buffer": picture(160, 48)}])
        page.get_by_role("button", name="Upload the logo").click()
        assert page.get_by_role("status").get_by_text("Saved the new logo").is_visible()

        page.goto(f"{hosts}/t/{owner.reseller.slug}/")
        assert page.locator(".topbar .brand").inner_text() == "Riverside Digital"
        assert logo_shown(page)
        assert header_colour(page) == HEADER
        current_tab = page.eval_on_selector(".mainnav a[aria-current]",
                                            "el => getComputedStyle(el).borderBottomColor")
        assert current_tab == "rgb(138, 43, 226)"  # the accent colour
        page.goto(f"{hosts}{brand_page}")
        assert page.locator(".brand-preview-bar img").evaluate("img => img.naturalWidth") > 0
        assert not violations, violations

    with viewport_page(browser, **PHONE) as phone:
        sign_in(phone, hosts, owner)
        assert phone.locator(".topbar .brand").is_visible()
        assert phone.locator(".topbar .brand").inner_text() == "Riverside Digital"
        assert logo_shown(phone) and header_colour(phone) == HEADER
        brand_box = phone.locator(".topbar .brand").bounding_box()
        assert brand_box["x"] >= 0 and brand_box["x"] + brand_box["width"] <= PHONE["width"]
        assert_fits(phone, "dashboard")
        phone.goto(f"{hosts}{brand_page}")
        assert phone.locator("#brand-preview").is_visible()
        assert_fits(phone, "brand settings")


def test_the_agencys_own_address_signs_in_its_members_only(hosts, host_browser):
    reseller = ResellerFactory(name="Riverside Agency", slug="riverside")
    member = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    brand_update(tenant=reseller, actor=None, product_name="Riverside Digital",
                 primary_colour="#0b3d2e", support_email="help@riverside.example", host=HOST)
    brand_logo_set(tenant=reseller, actor=None, data=picture(160, 48), file_name="logo.png")
    stranger = MembershipFactory(role=Role.OWNER,
                                 reseller=ResellerFactory(name="Harbour Agency"))
    base = f"http://{HOST}:{urlsplit(hosts).port}"

    with viewport_page(host_browser, 1366, 900) as page:
        page.goto(f"{base}/")
        assert "/accounts/login/" in page.url and urlsplit(page.url).hostname == HOST
        assert page.get_by_role("heading", name="Sign in to Riverside Digital").is_visible()
        assert page.locator(".topbar .brand").inner_text() == "Riverside Digital"
        assert logo_shown(page) and header_colour(page) == HEADER
        assert page.get_by_role("link", name="help@riverside.example").is_visible()
        sign_in(page, base, member)
        assert urlsplit(page.url).hostname == HOST
        assert page.locator(".topbar .brand").inner_text() == "Riverside Digital"

    with viewport_page(host_browser, **PHONE) as page:
        page.goto(f"{base}/accounts/login/")
        assert page.locator(".topbar .brand").inner_text() == "Riverside Digital"
        assert_fits(page, "sign-in page of the agency's address")
        # A member of another agency is refused there, and told where to go.
        page.get_by_label("Email").fill(stranger.user.email)
        page.get_by_label("Password").fill(DEFAULT_PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        assert page.get_by_role("alert").get_by_text(
            "not a member of Riverside Digital").is_visible()
        main = page.get_by_role("link", name=re.compile("^Go to "))
        assert main.get_attribute("href") == hosts
        assert_fits(page, "the page that sends to the main address")
        page.goto(f"{base}/t/{stranger.reseller.slug}/")
        assert "Only Riverside Digital is served at this address" in page.content()
        # The main address lets them into their own agency.
        main_page = page.context.new_page()
        sign_in(main_page, hosts, stranger)
        assert main_page.locator(".topbar .brand").inner_text() == "Reseller portal"

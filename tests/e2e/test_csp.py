"""Every page of a tenant, and the API documentation, in headless Chromium under the Content
Security Policy: the browser reports no violation (Redoc's remote logo aside), and the pages'
scripts run (the sync page's progress script, Swagger UI, Redoc)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Error as PlaywrightError

from accounts.models import Role
from tests.e2e.conftest import sign_in
from tests.factories import DEFAULT_PASSWORD
from tests.security.routes import tenant_pages
from tests.security.test_access import tenant_url
from tests.security.world import build_tenant

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Redoc shows the vendor's logo from its own site; blocking it changes nothing else.
ALLOWED = ("cdn.redoc.ly",)


def test_no_page_breaks_the_content_security_policy(live_server, browser, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PROVIDER_MAX_RETRIES = 0
    tenant = build_tenant("csp", "Csp-Tenant", 840_000_000)
    owner = tenant.members[Role.OWNER]
    owner.user.set_password(DEFAULT_PASSWORD)
    owner.user.save()
    violations: list[str] = []
    context = browser.new_context()
    try:
        def open_page():
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.on("console", lambda message: violations.append(f"{page.url}: {message.text}")
                    if "Content Security Policy" in message.text
                    and not any(allowed in message.text for allowed in ALLOWED) else None)
            return page

        page = open_page()
        sign_in(page, live_server.url, owner)
        visited = 0
        for route in tenant_pages():
            if route.route.endswith((".csv", ".json")):
                continue  # downloads and data, not pages
            # A page of its own each: some pages reload themselves while work is under way.
            tab = open_page()
            try:
                response = tab.goto(f"{live_server.url}{tenant_url(route, {'a': tenant})}")
                tab.wait_for_load_state("load")
            except PlaywrightError:  # a POST-only address answers 405 with no page
                response = None
            finally:
                tab.close()
            if response is not None and response.ok and "html" in response.headers.get(
                    "content-type", ""):
                visited += 1
        page.close()
        page = open_page()
        page.goto(f"{live_server.url}{reverse('api_docs')}")
        page.wait_for_selector(".opblock", timeout=20_000)
        page.goto(f"{live_server.url}{reverse('api_redoc')}")
        page.wait_for_selector("h2", timeout=20_000)
    finally:
        context.close()
    assert visited >= 25
    assert not violations, violations[:5]

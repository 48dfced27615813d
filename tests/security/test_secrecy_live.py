"""The provider key never leaves the portal: not in a page, an API answer, a header or a log
line (captured at DEBUG from every logger), while the portal talks to the sandbox over HTTP —
a sync, every page and every read of the API, a connection test and queued writes."""

from __future__ import annotations

import io
import logging

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role
from portal.api.base import TokenRateThrottle
from sandbox.seeding import seed_partner
from tests.security.routes import api_operations, tenant_pages
from tests.security.test_access import api_url, tenant_url
from tests.security.world import build_tenant

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

KEY = "live-secret-provider-key-7Hq2Zp9W"


def texts_of(response) -> list[str]:
    body = (b"".join(response.streaming_content) if response.streaming
            else response.content).decode(errors="replace")
    return [body, *(f"{k}: {v}" for k, v in response.items())]


def test_the_key_appears_in_no_page_answer_or_log_line(live_server, settings, caplog,
                                                       monkeypatch):
    settings.PROVIDER_MAX_RETRIES = 0
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api": "100000/min"})
    caplog.set_level(logging.DEBUG)
    seeded = seed_partner(api_key=KEY, locations=2, seed=3, rate_limit=(1000, 1))
    tenant = build_tenant("live", "Live-Tenant", 830_000_000, api_key=KEY,
                          provider_base_url=f"{live_server.url}/sandbox",
                          account_number=seeded["account_number"])
    world = {"a": tenant}
    call_command("sync", tenant.slug, "--json", stdout=io.StringIO(), stderr=io.StringIO())

    seen: list[str] = []
    browser = Client()
    browser.force_login(tenant.members[Role.OWNER].user)
    for route in tenant_pages():
        url = tenant_url(route, world)
        seen += texts_of(browser.get(url))
    seen += texts_of(browser.post(reverse("settings_test_connection", args=[tenant.slug])))
    seen += texts_of(browser.get(reverse("settings_connection", args=[tenant.slug])))

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {tenant.tokens[Role.OWNER]}")
    reads = [op for op in api_operations() if op[0] == "GET"]
    for _, path, _ in reads:
        seen += texts_of(api.get(api_url(path, world)[0]))
    seen += texts_of(api.post(reverse("api_sync_run_list", args=[tenant.slug]),
                              {"resources": ["businesses"]}, format="json"))

    assert len(seen) > 100
    leaks = [text[:200] for text in seen if KEY in text]
    assert not leaks, leaks
    # factory_boy's own DEBUG lines echo the key the test hands the reseller factory.
    logged = [record.getMessage() + (record.exc_text or "") for record in caplog.records
              if not record.name.startswith("factory")]
    assert any("sandbox" in line or "provider" in line.lower() for line in logged)
    leaked_lines = [line[:200] for line in logged if KEY in line]
    assert not leaked_lines, leaked_lines

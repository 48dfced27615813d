"""Both API documentation pages in headless Chromium: they render, the browser reports no
Content Security Policy violation at all (Redoc's remote logo was one), and nothing is asked of
another site."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.urls import reverse

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("name", "ready"), [("api_docs", ".opblock-tag"),
                                             ("api_redoc", "h2")])
def test_the_docs_page_loads_nothing_from_elsewhere(live_server, page, name, ready):
    violations: list[str] = []
    elsewhere: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    own_host = urlsplit(live_server.url).hostname
    page.on("request", lambda request: elsewhere.append(request.url)
            if urlsplit(request.url).scheme in ("http", "https")
            and urlsplit(request.url).hostname != own_host else None)
    page.goto(f"{live_server.url}{reverse(name)}")
    page.wait_for_selector(ready, timeout=20_000)
    # Groups by resource, not one group named after the URL's tenant prefix.
    assert page.get_by_text("Businesses", exact=True).first.is_visible()
    page.wait_for_timeout(500)  # the sidebar's images load after the first paint
    assert not violations, violations[:3]
    assert not elsewhere, elsewhere[:3]

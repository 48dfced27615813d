"""Who may reach what, for every page and every API operation: anonymous users go to the sign-in
page (UI) or get 401 (API); another tenant's member gets 404 and never sees a row of this
tenant; viewers cannot write; owners reach every URL of their tenant."""

from __future__ import annotations

import base64
import re

import pytest
from django.urls import resolve, reverse

from accounts.models import Role
from tests.security.routes import (
    PUBLIC,
    SIGNED_IN_PAGES,
    admin_routes,
    admin_url,
    api_operations,
    excluded_reason,
    route_key,
    routes,
    tenant_pages,
)
from tests.security.world import B_MARKER, fill_kwargs

pytestmark = pytest.mark.django_db

WRITE_METHODS = ["post", "put", "patch", "delete"]
# Tenant pages a viewer may write to, with the reason.
VIEWER_WRITABLE = {
    "api_tokens": "every member creates their own API tokens (at most their own role)",
    "api_token_revoke": "every member revokes their own API tokens",
    "notification_list": "every member marks their own notifications read",
    "notification_open": "every member opens their own notifications (GET only)",
    "notification_preferences": "every member chooses how alerts reach them",
}
# API operations a viewer may write to, with the reason.
VIEWER_WRITABLE_API = {
    "/api/v1/t/{slug}/notifications/{id}/read/": "every member reads their own notifications",
    "/api/v1/t/{slug}/notifications/read-all/": "every member reads their own notifications",
    "/api/v1/t/{slug}/notification-preferences/": "every member chooses how alerts reach them",
}


def tenant_url(route, world, label="a", slug_of=None):
    kwargs = fill_kwargs(route, world[label], slug_of=world[slug_of] if slug_of else None)
    return reverse(route.name, kwargs=kwargs)


def body_text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle\s*=", re.I)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


def inline_code(html: str) -> list[str]:
    """What the CSP would block: inline scripts, style elements and attributes, handlers."""
    found = []
    for pattern in (INLINE_SCRIPT, INLINE_STYLE, INLINE_HANDLER):
        found += [m.group(0)[:80] for m in pattern.finditer(html)]
    # <template> and JSON data blocks are not executed.
    return [f for f in found if "application/json" not in f]


def assert_sent_to_login(response, login="/accounts/login/"):
    assert response.status_code == 302, response.status_code
    assert response["Location"].startswith(login), response["Location"]


# -- the URL conf is fully sorted ---------------------------------------------------------------


def test_every_url_pattern_is_covered_or_public(world):
    api_names = {resolve(re.sub(r"\{[^}]+\}", "1", path)).url_name
                 for _, path, _ in api_operations()}
    unsorted = []
    for route in routes():
        key = route_key(route)
        if excluded_reason(route) or key in PUBLIC or route.route.startswith("admin/"):
            continue
        if route.is_tenant_page or route.name in SIGNED_IN_PAGES:
            fill_kwargs(route, world["a"])  # raises when a keyword argument has no filler
            continue
        if route.is_tenant_api and route.name in api_names:
            continue
        unsorted.append(f"{route.route} ({route.name})")
    assert not unsorted, ("URL patterns neither checked nor listed as public in "
                          f"tests/security/routes.py: {unsorted}")


def test_the_served_schema_is_the_one_checked(client):
    """The operations parametrized here are exactly those /api/schema/ serves."""
    served = client.get("/api/schema/", {"format": "json"}).json()
    served_ops = {(m.upper(), p) for p, ops in served["paths"].items() for m in ops
                  if m in {"get", "post", "put", "patch", "delete"}}
    assert served_ops == {(m, p) for m, p, _ in api_operations()}
    assert len(served_ops) >= 30


# -- UI pages -----------------------------------------------------------------------------------


@pytest.mark.parametrize("route", tenant_pages(), ids=lambda r: r.name)
def test_tenant_page(route, world, ui):
    url = tenant_url(route, world)
    # Anonymous: to the sign-in page, whatever the method.
    anonymous = ui(None)
    assert_sent_to_login(anonymous.get(url))
    assert_sent_to_login(anonymous.post(url, {}))

    # The tenant's owner reaches it (a POST-only page answers 405 to GET).
    owner = ui("a", Role.OWNER)
    response = owner.get(url)
    assert response.status_code in {200, 302, 405}, (url, response.status_code)
    read_method = "post" if response.status_code == 405 else "get"
    if response.status_code == 200:
        body = body_text(response)
        assert B_MARKER not in body, f"{url} shows a row of another tenant"
        assert world["b"].reseller.slug not in body
        if response["Content-Type"].startswith("text/html"):
            assert "Content-Security-Policy" in response
            assert not inline_code(body), (url, inline_code(body)[:3])

    # Another tenant's member: 404 for this tenant's slug, with any method...
    other = ui("b", Role.OWNER)
    assert other.get(url).status_code == 404
    assert other.post(url, {}).status_code == 404
    # ...and 404 for this tenant's rows under their own slug.
    if set(route.kwargs) - {"slug"}:
        crossed = tenant_url(route, world, slug_of="b")
        assert getattr(other, read_method)(crossed).status_code == 404, crossed

    # Viewers write nothing.
    viewer = ui("a", Role.VIEWER)
    for method in WRITE_METHODS:
        status = getattr(viewer, method)(url).status_code
        if route.name in VIEWER_WRITABLE:
            assert status != 403 and status < 500, (method, status)
        else:
            assert status == 403, (url, method, status)


def test_viewers_may_revoke_only_their_own_tokens(world, ui):
    viewer = ui("a", Role.VIEWER)
    owners_token = world["a"].token_pks[Role.OWNER]
    url = reverse("api_token_revoke", args=[world["a"].slug, owners_token])
    assert viewer.get(url).status_code == 404
    assert viewer.post(url).status_code == 404


@pytest.mark.parametrize("name", sorted(SIGNED_IN_PAGES))
def test_signed_in_page(name, world, ui):
    url = reverse(name)
    assert_sent_to_login(ui(None).get(url))
    response = ui("a", Role.OWNER).get(url)
    assert response.status_code in {200, 302}
    assert B_MARKER not in response.content.decode()


@pytest.mark.parametrize("route", admin_routes(), ids=[r.route for r in admin_routes()])
def test_admin_is_for_staff_only(route, world, ui):
    url = admin_url(route)
    admin_login = reverse("admin:login")
    assert_sent_to_login(ui(None).get(url), login=admin_login)
    # A tenant's owner is not support staff.
    assert_sent_to_login(ui("a", Role.OWNER).get(url), login=admin_login)


# -- API operations -----------------------------------------------------------------------------


def api_url(path_template, world, label="a", slug_of=None):
    match = resolve(re.sub(r"\{[^}]+\}", "1", path_template))
    route = next(r for r in routes() if r.name == match.url_name)
    kwargs = fill_kwargs(route, world[label], slug_of=world[slug_of] if slug_of else None)
    return reverse(route.name, kwargs=kwargs), route


@pytest.mark.parametrize(("method", "path", "operation"), api_operations(),
                         ids=[f"{m} {p}" for m, p, _ in api_operations()])
def test_api_operation(method, path, operation, world, api):
    url, route = api_url(path, world)
    call = method.lower()

    response = getattr(api(None), call)(url)
    assert response.status_code == 401, (url, response.status_code)
    assert response.json()["code"] == "not_authenticated"

    # Another tenant's token: 404 for this tenant's slug and for its rows under its own.
    other = api("b", Role.OWNER)
    response = getattr(other, call)(url, {}, format="json")
    assert response.status_code == 404, (url, response.status_code)
    assert response.json()["code"] == "not_found"
    if set(route.kwargs) - {"slug"}:
        crossed, _ = api_url(path, world, slug_of="b")
        assert getattr(other, call)(crossed, {}, format="json").status_code == 404, crossed

    if method == "GET":
        response = api("a", Role.OWNER).get(url)
        if response.status_code == 503:
            # Read live from the provider, which is unreachable here: an honest answer.
            assert response.json()["code"] == "provider_unavailable"
            return
        assert response.status_code == 200, (url, response.status_code, response.content[:300])
        assert B_MARKER not in response.content.decode(), f"{url} shows another tenant's row"
    else:
        response = getattr(api("a", Role.VIEWER), call)(url, {}, format="json")
        if path in VIEWER_WRITABLE_API:
            assert response.status_code != 403 and response.status_code < 500, (url, response)
            return
        assert response.status_code == 403, (url, response.status_code)
        assert response.json()["code"] == "permission_denied"


# -- the provider's webhook receiver ------------------------------------------------------------


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def test_webhook_receiver_refuses_wrong_credentials(world, client):
    if "receiver" not in world["a"].extra:
        pytest.skip("no webhook receiver in this build (the events app is not installed)")
    from tests.security.world import WEBHOOK_PASSWORD

    receiver, other = world["a"].extra["receiver"], world["b"].extra["receiver"]
    url = reverse("provider_event_receive", args=[receiver.public_id])
    body = '{"eventName": "SURVEY_COMPLETED"}'
    attempts = {
        "no credentials": {},
        "wrong password": {"HTTP_AUTHORIZATION": basic(receiver.username, "wrong")},
        "another tenant's credentials": {
            "HTTP_AUTHORIZATION": basic(other.username, WEBHOOK_PASSWORD)},
        "not basic": {"HTTP_AUTHORIZATION": f"Bearer {world['a'].tokens[Role.OWNER]}"},
        "garbage": {"HTTP_AUTHORIZATION": "Basic %%%not-base64"},
    }
    for label, headers in attempts.items():
        response = client.post(url, body, content_type="application/json", **headers)
        assert response.status_code == 401, (label, response.status_code)
    unknown = reverse("provider_event_receive", args=["00000000-0000-0000-0000-000000000000"])
    response = client.post(unknown, body, content_type="application/json",
                           HTTP_AUTHORIZATION=basic(receiver.username, WEBHOOK_PASSWORD))
    assert response.status_code == 401
    # The right credentials are let through (whatever the body then gets).
    response = client.post(url, body, content_type="application/json",
                           HTTP_AUTHORIZATION=basic(receiver.username, WEBHOOK_PASSWORD))
    assert response.status_code not in {401, 403} and response.status_code < 500

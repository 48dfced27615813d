"""Error pages: 400, 403, 404 and 500 in the portal's layout with plain words and a way back;
JSON in the API's error shape under /api/."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import PermissionDenied
from django.template import loader
from django.test import Client
from django.urls import reverse

from accounts.models import Role
from portal.error_views import refusal_message
from portal.exceptions import AccessRefused
from tests.factories import BusinessFactory, MembershipFactory
from tests.security.test_access import inline_code

pytestmark = pytest.mark.django_db

BRAND = ">Reseller portal</a>"


@pytest.fixture(autouse=True)
def _production_errors(settings):
    settings.DEBUG = False


def member(role, **extra):
    """A logged-in client that answers errors with their pages instead of raising them."""
    membership = MembershipFactory(role=role, **extra)
    client = Client(raise_request_exception=False)
    client.force_login(membership.user)
    return client, membership


def html_of(response) -> str:
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    assert "Content-Security-Policy" in response
    html = response.content.decode()
    assert not inline_code(html), inline_code(html)[:3]
    return html


def assert_layout(html: str, *, signed_in: bool = True) -> None:
    assert BRAND in html
    assert ('class="link">Sign out</button>' in html) is signed_in


def dashboard_href(membership) -> str:
    return f'href="{reverse("tenant_home", args=[membership.reseller.slug])}"'


# -- 403 ----------------------------------------------------------------------------------------


def test_a_viewer_writing_to_a_managers_page_gets_the_403_page_with_a_way_back():
    client, membership = member(Role.VIEWER)
    response = client.post(reverse("sync_run_list", args=[membership.reseller.slug]), {})
    assert response.status_code == 403
    html = html_of(response)
    assert_layout(html)
    assert "You don't have access to this page" in html
    assert "ask an owner of your agency" in html
    # The portal's own reason, and the tenant's menu and dashboard: the member is still in it.
    assert "Your role does not allow this" in html
    assert dashboard_href(membership) in html
    assert 'class="mainnav"' in html
    assert membership.reseller.name in html


def test_a_limited_member_on_an_account_wide_page_is_told_why():
    location = BusinessFactory()
    client, membership = member(Role.MANAGER, reseller=location.reseller, limited_to=location)
    response = client.get(reverse("custom_field_list", args=[membership.reseller.slug]))
    assert response.status_code == 403
    html = html_of(response)
    assert "covers the whole account" in html
    assert dashboard_href(membership) in html


def test_a_refusal_written_by_django_is_not_shown(settings):
    # CommonMiddleware refuses these before any view or tenant: no reason, a link home.
    settings.DISALLOWED_USER_AGENTS = [re.compile(r"^BadBot")]
    client, _ = member(Role.OWNER)
    response = client.get(reverse("home"), HTTP_USER_AGENT="BadBot/1.0")
    assert response.status_code == 403
    html = html_of(response)
    assert "You don't have access to this page" in html
    assert "Forbidden user agent" not in html
    assert f'href="{reverse("home")}"' in html
    assert 'class="mainnav"' not in html


def test_refusal_message_shows_only_the_portals_words_for_members():
    assert refusal_message(AccessRefused("Ask an owner.")) == "Ask an owner."
    # Django's and other packages' refusals were not written for a reader.
    assert refusal_message(PermissionDenied("Forbidden user agent")) == ""
    assert refusal_message(PermissionDenied()) == ""
    assert refusal_message(None) == ""


# -- 404 ----------------------------------------------------------------------------------------


def test_an_unknown_url_gets_the_404_page():
    client, membership = member(Role.OWNER)
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    html = html_of(response)
    assert_layout(html)
    assert "We can't find that page" in html
    assert f'href="{reverse("home")}"' in html


def test_a_missing_object_of_a_tenant_keeps_the_tenant_menu():
    client, membership = member(Role.VIEWER)
    response = client.get(reverse("business_detail", args=[membership.reseller.slug, 1]))
    assert response.status_code == 404
    html = html_of(response)
    assert_layout(html)
    assert 'class="mainnav"' in html
    assert dashboard_href(membership) in html


def test_another_resellers_page_shows_nothing_of_it():
    client, _ = member(Role.OWNER)
    other = MembershipFactory(role=Role.OWNER)
    response = client.get(reverse("tenant_home", args=[other.reseller.slug]))
    assert response.status_code == 404
    html = html_of(response)
    assert other.reseller.name not in html and other.reseller.slug not in html
    assert 'class="mainnav"' not in html


def test_the_404_page_for_a_visitor_who_is_not_signed_in():
    response = Client().get("/no/such/page/")
    assert response.status_code == 404
    assert_layout(html_of(response), signed_in=False)


# -- 500 and 400 --------------------------------------------------------------------------------


def test_an_exception_in_a_view_gets_the_500_page(monkeypatch):
    def explode(self, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr("dashboard.views.TenantHomeView.get_context_data", explode)
    client, membership = member(Role.OWNER)
    response = client.get(reverse("tenant_home", args=[membership.reseller.slug]))
    assert response.status_code == 500
    html = html_of(response)
    # Rendered without the request: the brand and a link home, nothing of the user.
    assert_layout(html, signed_in=False)
    assert "Something went wrong on our side" in html
    assert f'href="{reverse("home")}"' in html
    assert "database on fire" not in html
    assert membership.user.email not in html


def test_the_500_and_400_pages_render_with_an_empty_context():
    for name, words in (("500.html", "Something went wrong on our side"),
                        ("400.html", "We couldn't understand that request")):
        html = loader.get_template(name).render()
        assert words in html and BRAND in html
        assert "Sign out" not in html
        assert not inline_code(html)


def test_a_bad_request_gets_the_400_page(settings):
    # A Host header outside ALLOWED_HOSTS is Django's SuspiciousOperation, answered 400.
    response = Client(raise_request_exception=False).get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    html = html_of(response)
    assert "We couldn't understand that request" in html
    assert_layout(html, signed_in=False)


# -- the API keeps answering JSON ---------------------------------------------------------------


def assert_api_error(response, status: int, code: str) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) >= {"code", "message", "fields"} and body["code"] == code, body
    return body


@pytest.mark.parametrize("path", ["/api/nope/", "/api/v1/nope/", "/api/v1/t/{slug}/nope/"])
def test_an_unknown_api_path_answers_json_404(api_member, path):
    client, membership = api_member(Role.VIEWER)
    assert_api_error(client.get(path.format(slug=membership.reseller.slug)), 404, "not_found")
    # Also without credentials, and for a client that asks for HTML.
    assert_api_error(Client().get(path.format(slug=membership.reseller.slug),
                                  HTTP_ACCEPT="text/html"), 404, "not_found")


def test_a_missing_api_object_still_answers_drfs_json_404(api_member):
    client, membership = api_member(Role.VIEWER)
    url = reverse("api_business_detail", args=[membership.reseller.slug, 1])
    assert_api_error(client.get(url), 404, "not_found")


def test_an_exception_in_an_api_view_answers_json_500(api_member, monkeypatch):
    def explode(self, request, *args, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr("accounts.api.views.BusinessList.list", explode)
    _, membership = api_member(Role.VIEWER)
    client = Client(raise_request_exception=False)
    client.force_login(membership.user)
    response = client.get(reverse("api_business_list", args=[membership.reseller.slug]))
    body = assert_api_error(response, 500, "server_error")
    assert "database on fire" not in body["message"]

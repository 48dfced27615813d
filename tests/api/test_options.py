"""OPTIONS on every tenant API URL: DRF's metadata answer describes the writes a member may make,
which builds serializers and looks objects up outside the view's usual path; it must never end in
a 5xx, whatever the role."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role
from tests.security.world import build_tenant, destroy_tenant, fill_kwargs, url_routes

pytestmark = pytest.mark.django_db

TENANT_API_ROUTES = [route for route in url_routes() if route.is_tenant_api]


@pytest.fixture(scope="module")
def tenant(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        built = build_tenant("opt", "Options-Tenant", 830_000_000)
    yield built
    with django_db_blocker.unblock():
        destroy_tenant(built)


def test_there_are_tenant_api_routes_to_check():
    assert len(TENANT_API_ROUTES) > 10
    assert "api_business_hierarchy" in {route.name for route in TENANT_API_ROUTES}


@pytest.mark.parametrize("role", [None, Role.OWNER, Role.MANAGER, Role.VIEWER])
@pytest.mark.parametrize("route", TENANT_API_ROUTES, ids=[r.name for r in TENANT_API_ROUTES])
def test_options_never_answers_a_server_error(tenant, route, role):
    client = APIClient(raise_request_exception=False)
    if role is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {tenant.tokens[role]}")
    url = reverse(route.name, kwargs=fill_kwargs(route, tenant))

    response = client.options(url)

    assert response.status_code < 500, (url, response.status_code, response.content[:300])
    if response.status_code == 200:
        assert "OPTIONS" in response["Allow"]


def test_options_describes_the_hierarchy_write_to_an_owner(tenant):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {tenant.tokens[Role.OWNER]}")
    url = reverse("api_business_hierarchy", args=[tenant.slug, tenant.business.remote_id])

    response = client.options(url)

    assert response.status_code == 200
    assert "levels" in response.json()["actions"]["PUT"]


def test_options_hides_the_hierarchy_write_from_a_viewer(tenant):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {tenant.tokens[Role.VIEWER]}")
    url = reverse("api_business_hierarchy", args=[tenant.slug, tenant.business.remote_id])

    response = client.options(url)

    assert response.status_code == 200
    assert "PUT" not in response.json().get("actions", {})

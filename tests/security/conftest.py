from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Role
from tests.security.world import build_tenant, destroy_tenant


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Tenants a and b, seeded once per module and committed; each test still runs in a
    transaction rolled back at its end, so what a test writes never reaches the next one."""
    with django_db_blocker.unblock():
        tenants = {"a": build_tenant("a", "Alder-Home-Tenant", 810_000_000),
                   "b": build_tenant("b", "Zebulon-Other-Tenant", 820_000_000)}
    yield tenants
    with django_db_blocker.unblock():
        for tenant in tenants.values():
            destroy_tenant(tenant)


@pytest.fixture
def ui(world, db):
    """A logged-in browser client per tenant and role: `ui("a", Role.VIEWER)`; `ui(None)` is
    anonymous."""

    def make(label: str | None, role: str = Role.OWNER) -> Client:
        client = Client()
        if label is not None:
            client.force_login(world[label].members[role].user)
        return client

    return make


@pytest.fixture
def api(world, db):
    """An API client with a member's token per tenant and role: `api("b", Role.OWNER)`;
    `api(None)` sends no credentials."""

    def make(label: str | None, role: str = Role.OWNER) -> APIClient:
        client = APIClient()
        if label is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {world[label].tokens[role]}")
        return client

    return make


@pytest.fixture(autouse=True)
def _fast_provider_failures(settings):
    # Provider calls go to a closed port; no retries keep a failing call instant.
    settings.PROVIDER_MAX_RETRIES = 0
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0

"""A seeded and synced tenant behind the live server, for the tests that call the API as its
users' software does: the schema fuzz run and the generated client."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from accounts.models import Role
from accounts.tokens import api_token_create
from portal.api.base import TokenRateThrottle
from portal.tenancy import tenant_scope
from reviews_app.services import survey_add
from sandbox.seeding import seed_partner
from tests.factories import MembershipFactory, ResellerFactory
from tests.live import join_live_server_requests

SANDBOX_KEY = "api-contract-partner-key"


@pytest.fixture
def seeded_owner(live_server, settings, tmp_path, monkeypatch):
    """(reseller, an owner's API token) of a reseller connected to a seeded sandbox over the
    live server, its surveys followed and everything synced once."""
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api": "100000/min"})
    seeded = seed_partner(api_key=SANDBOX_KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=SANDBOX_KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox",
                               rate_limit_count=1000)
    with tenant_scope(reseller):
        for survey_id in seeded["survey_ids"]:
            survey_add(tenant=reseller, actor=None, remote_id=survey_id)
    call_command("sync", reseller.slug, "--json", stdout=io.StringIO(), stderr=io.StringIO())
    membership = MembershipFactory(reseller=reseller, role=Role.OWNER)
    with tenant_scope(reseller):
        _, token = api_token_create(tenant=reseller, actor=None, user=membership.user,
                                    name="contract", role=Role.OWNER)
    yield reseller, token
    join_live_server_requests()

"""A fuzz run of the whole OpenAPI schema with schemathesis, as an owner of a seeded and synced
tenant: no answer is a 5xx, and every answer's status and body are the ones the schema
documents."""

from __future__ import annotations

import io

import pytest
import schemathesis
from django.core.management import call_command
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import Business, Role, SyncRun
from accounts.tokens import api_token_create
from outbox.models import OutboxEntry
from portal.api.base import TokenRateThrottle
from portal.tenancy import tenant_scope
from reviews_app.models import Survey, SurveyResponse
from reviews_app.services import survey_add
from sandbox.seeding import seed_partner
from tests.factories import MembershipFactory, ResellerFactory
from tests.live import join_live_server_requests

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

KEY = "schema-fuzz-partner-key"
MAX_EXAMPLES = 15
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance,
          positive_data_acceptance, negative_data_rejection]


@pytest.fixture
def seeded_owner(live_server, settings, tmp_path, monkeypatch):
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api": "100000/min"})
    seeded = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox",
                               rate_limit_count=1000)
    with tenant_scope(reseller):
        for survey_id in seeded["survey_ids"]:
            survey_add(tenant=reseller, actor=None, remote_id=survey_id)
    call_command("sync", reseller.slug, "--json", stdout=io.StringIO(), stderr=io.StringIO())
    membership = MembershipFactory(reseller=reseller, role=Role.OWNER)
    with tenant_scope(reseller):
        _, token = api_token_create(tenant=reseller, actor=None, user=membership.user,
                                    name="fuzz", role=Role.OWNER)
    yield reseller, token
    join_live_server_requests()


def known_ids(reseller) -> dict[str, list[int]]:
    """Real ids per first path segment after the slug, so that the run reaches real objects."""
    with tenant_scope(reseller):
        return {
            "businesses": list(Business.objects.values_list("remote_id", flat=True)),
            "surveys": list(Survey.objects.values_list("remote_id", flat=True)),
            "survey-responses": list(SurveyResponse.objects.values_list("remote_id",
                                                                        flat=True)[:20]),
            "sync-runs": list(SyncRun.objects.values_list("pk", flat=True)),
            "changes": list(OutboxEntry.objects.values_list("pk", flat=True)),
        }


def test_the_whole_schema_answers_as_documented(seeded_owner):
    reseller, token = seeded_owner
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json",
                                            get_wsgi_application())
    ids = known_ids(reseller)
    headers = {"Authorization": f"Bearer {token}"}
    failures: list[str] = []
    covered = 0

    for result in schema.get_all_operations():
        operation = result.ok()
        segments = operation.path.split("{slug}/", 1)[-1].split("/")
        real = ids.get(segments[0], [])
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode), pick=st.integers(0, 3))
            @settings(max_examples=MAX_EXAMPLES, derandomize=True, database=None,
                      deadline=None, phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            def run(case, pick):
                case.path_parameters = {**(case.path_parameters or {}), "slug": reseller.slug}
                for name in case.path_parameters:
                    if name != "slug" and real and pick:
                        case.path_parameters[name] = real[pick % len(real)]
                try:
                    case.call_and_validate(headers=headers, checks=CHECKS)
                except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - reported below
                    failures.append(f"{operation.method.upper()} {operation.path} ({mode}): "
                                    f"{type(exc).__name__}: {str(exc)[:1500]}")

            try:
                run()
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - reported below
                failures.append(f"{operation.method.upper()} {operation.path} ({mode}): "
                                f"{type(exc).__name__}: {str(exc)[:1500]}")
        covered += 1

    print(f"schema fuzz: {covered} operations, up to {MAX_EXAMPLES} examples each")
    assert covered > 0
    if failures:
        pytest.fail(f"{len(failures)} of {covered} operations failed:\n\n"
                    + "\n\n".join(failures), pytrace=False)

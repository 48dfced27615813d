"""A bounded fuzz run of every operation of the OpenAPI schema with schemathesis, as an owner of
a seeded and synced tenant, with input that fits the schema (positive) and input that does not
(negative). No answer is a 5xx; every answer's status, headers and body are the ones the
schema documents; and input that fits the schema is accepted, unless the refusal names only
fields the operation says it checks beyond the schema (its `x-checked-beyond-schema`: a name
already taken, a first day after the last...). That input outside the schema is refused is
checked where the schema states it exactly (`limit`, `offset`, unknown fields, booleans:
tests/api/test_contract.py, tests/listings/test_document.py)."""

from __future__ import annotations

import time

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import Business, SyncRun
from outbox.models import OutboxEntry
from portal.api.docs import CHECKED_BEYOND_SCHEMA
from portal.tenancy import tenant_scope
from reviews_app.models import Survey, SurveyResponse

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Examples per operation: input that fits the schema, and input that does not (which must still
# answer as documented). Bounded so that the run takes a couple of minutes.
MAX_EXAMPLES = {GenerationMode.POSITIVE: 15, GenerationMode.NEGATIVE: 5}
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
# The test gives every request the slug, real ids and the owner's token: a case made invalid
# only there is valid by the time it is sent, so it is judged as any valid one.
SUBSTITUTED = {ParameterLocation.PATH, ParameterLocation.HEADER}
REFUSALS = {400, 413, 415, 422}


def _covered(field: str, rules: dict[str, str]) -> bool:
    return any(field == name or field.startswith((f"{name}.", f"{name}["))
               for name in rules)


def refused_beyond_schema(operation, response) -> bool:
    """Whether a refusal of schema-valid input names only fields the operation checks beyond
    its schema (and so may refuse whatever the schema says)."""
    rules = operation.definition.raw.get(CHECKED_BEYOND_SCHEMA, {})
    if response.status_code != 400 or not rules:
        return False
    try:
        fields = response.json().get("fields") or {}
    except ValueError:
        return False
    return bool(fields) and all(_covered(field, rules) for field in fields)


def fits_the_schema(case) -> bool:
    """Whether the request sent fits the schema: generated so, or made invalid only where the
    test substitutes its own values."""
    components = getattr(case.meta, "components", {}) or {}
    return all(info.mode.is_positive or location in SUBSTITUTED
               for location, info in components.items())


def check_acceptance(operation, case, response) -> None:
    """Schema-valid input is accepted, or refused for a rule beyond the schema."""
    if response.status_code in REFUSALS and not refused_beyond_schema(operation, response):
        raise AssertionError(f"schema-valid input refused: {response.status_code} "
                             f"{response.text[:600]}\n{case.as_curl_command()}")


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

    durations: dict[str, float] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        started = time.monotonic()
        segments = operation.path.split("{slug}/", 1)[-1].split("/")
        real = ids.get(segments[0], [])
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode), pick=st.integers(0, 3))
            @settings(max_examples=MAX_EXAMPLES[mode], derandomize=True, database=None,
                      deadline=None, phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            def run(case, pick):
                case.path_parameters = {**(case.path_parameters or {}), "slug": reseller.slug}
                for name in case.path_parameters:
                    if name != "slug" and real and pick:
                        case.path_parameters[name] = real[pick % len(real)]
                try:
                    response = case.call(headers=headers)
                    case.validate_response(response, checks=CHECKS, headers=headers)
                    if fits_the_schema(case):
                        check_acceptance(operation, case, response)
                except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - reported below
                    failures.append(f"{operation.method.upper()} {operation.path} ({mode}): "
                                    f"{type(exc).__name__}: {str(exc)[:1500]}")

            try:
                run()
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - reported below
                failures.append(f"{operation.method.upper()} {operation.path} ({mode}): "
                                f"{type(exc).__name__}: {str(exc)[:1500]}")
        covered += 1
        durations[f"{operation.method.upper()} {operation.path}"] = time.monotonic() - started

    slowest = sorted(durations.items(), key=lambda item: -item[1])[:5]
    print(f"schema fuzz: {covered} operations, up to {sum(MAX_EXAMPLES.values())} examples "
          f"each; slowest: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in slowest))
    assert covered > 0
    if failures:
        pytest.fail(f"{len(failures)} of {covered} operations failed:\n\n"
                    + "\n\n".join(failures), pytrace=False)

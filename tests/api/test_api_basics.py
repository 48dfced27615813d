"""The API's documentation is served offline and valid; per-token throttling answers 429."""

import pytest
import yaml
from django.urls import reverse
from openapi_spec_validator import validate

from accounts.models import Role
from portal.api.base import TokenRateThrottle

pytestmark = pytest.mark.django_db


def test_the_schema_is_valid_openapi_and_documents_every_tenant_path(client):
    response = client.get(reverse("api_schema"))
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    validate(schema)
    paths = schema["paths"]
    for expected in ["/api/v1/t/{slug}/businesses/", "/api/v1/t/{slug}/sync-runs/",
                     "/api/v1/t/{slug}/businesses/{remote_id}/listing/submissions/",
                     "/api/v1/t/{slug}/businesses/{remote_id}/media/",
                     "/api/v1/t/{slug}/subscriptions/", "/api/v1/t/{slug}/surveys/"]:
        assert expected in paths
    for path, operations in paths.items():
        for method, operation in operations.items():
            assert {"401", "404"} <= set(operation["responses"]), (method, path)
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


@pytest.mark.parametrize("name", ["api_docs", "api_redoc"])
def test_the_docs_pages_load_their_assets_locally(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    # Swagger UI from the sidecar's static files; Redoc's bundle from the page itself.
    assert "drf_spectacular_sidecar" in html or f"{reverse(name)}?script" in html
    assert "cdn." not in html and "unpkg" not in html


def test_a_token_over_its_rate_gets_429_with_retry_after(api_member, monkeypatch):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"api": "2/min"})
    client, membership = api_member(Role.VIEWER)
    other_client, _ = api_member(Role.VIEWER, reseller=membership.reseller)
    url = reverse("api_business_list", args=[membership.reseller.slug])
    assert [client.get(url).status_code for _ in range(2)] == [200, 200]
    limited = client.get(url)
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    assert limited.json()["code"] == "throttled"
    assert other_client.get(url).status_code == 200  # counted per token


def test_a_services_validation_error_is_a_400_naming_the_field(rf):
    """Services raise Django's ValidationError; the API answers it like a serializer's."""
    from django.core.exceptions import ValidationError

    from portal.api.errors import api_exception_handler

    response = api_exception_handler(
        ValidationError({"resources": "These cover the whole account."}), {})
    assert response.status_code == 400
    assert response.data["code"] == "invalid"
    assert response.data["fields"] == {"resources": ["These cover the whole account."]}
    plain = api_exception_handler(ValidationError("Nothing to send."), {})
    assert plain.status_code == 400 and plain.data["message"] == "Nothing to send."


def test_a_provider_failure_is_a_422_when_refused_and_a_503_when_it_could_not_answer():
    from portal.api.errors import api_exception_handler
    from portal.exceptions import ProviderUnavailable

    refused = api_exception_handler(
        ProviderUnavailable("Business id is invalid.", code=1011, refused=True), {})
    assert refused.status_code == 422
    assert refused.data["code"] == "provider_rejected" and refused.data["provider_code"] == 1011
    down = api_exception_handler(ProviderUnavailable("The provider did not answer."), {})
    assert down.status_code == 503 and down.data["code"] == "provider_unavailable"

"""/sandbox/openapi.json: a valid OpenAPI 3 document that covers every served operation."""

from __future__ import annotations

import re

import pytest
import requests
from django.urls import get_resolver

from sandbox.openapi import openapi_document
from tests.sandbox.conftest import LIVE_DB

pytestmark = LIVE_DB


def test_served_without_a_key(sandbox_url):
    response = requests.get(f"{sandbox_url}/openapi.json", timeout=10)
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert document["servers"][0]["url"].endswith("/sandbox")


def test_valid_openapi():
    validator = pytest.importorskip("openapi_spec_validator")
    validator.validate(openapi_document(server_url="http://localhost/sandbox"))


def test_every_route_is_documented_and_every_path_is_routed():
    resolver = get_resolver("sandbox.urls")
    routes = set()
    for pattern in resolver.url_patterns:
        route = str(pattern.pattern)
        if route.startswith("v"):
            routes.add(re.sub(r"<str:\w+>", "{}", "/" + route))
    documented = {re.sub(r"\{\w+\}", "{}", path) for path in openapi_document()["paths"]}
    assert routes == documented
    assert len(documented) == 17  # the 16 operations and subscribe


def test_every_operation_documents_its_errors():
    for path, operations in openapi_document()["paths"].items():
        for operation in operations.values():
            assert {"200", "401", "429", "500"} <= set(operation["responses"]), path
            assert "x-api-key" not in str(operation.get("parameters"))

"""The API's contract as the schema states it: JSON bodies (multipart only for uploads),
nullability in JSON Schema's words, every reply of the plumbing documented with the error body,
files described so that generators read them, `limit` and `offset` read exactly, and the check
of every reply of the tests against the schema, which fails on a reply that leaves it."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.response import Response

from accounts.api.views import BusinessDetail
from accounts.models import Role
from portal.api.docs import CHECKED_BEYOND_SCHEMA
from tests.factories import BusinessFactory
from tests.schema_check import ReplyOutsideSchema, published_schema

pytestmark = pytest.mark.django_db

WRITES = {"post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return published_schema()


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def walk(node, where=""):
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}[{index}]")


# -- JSON in ---------------------------------------------------------------------------------

UPLOADS = {("put", "/api/v1/t/{slug}/brand/logo/"), ("post", "/api/v1/t/{slug}/listing-imports/")}


def test_every_body_is_json_but_the_file_uploads_and_has_a_named_component(schema):
    seen = 0
    for path, method, operation in operations(schema):
        content = operation.get("requestBody", {}).get("content")
        if content is None:
            continue
        seen += 1
        expected = ["multipart/form-data"] if (method, path) in UPLOADS else ["application/json"]
        assert list(content) == expected, (method, path, list(content))
        body = next(iter(content.values()))["schema"]
        assert set(body) == {"$ref"}, (method, path, body)  # a component, never inline
    assert seen >= 19


def test_a_form_body_is_refused_415_in_the_error_shape(api_member):
    client, membership = api_member(Role.OWNER)
    url = reverse("api_custom_field_list", args=[membership.reseller.slug])
    body = {"field_name": "Parking", "type": "DROPDOWN_SINGLE",
            "drop_down_options": ["Street", "Garage"]}

    as_form = client.post(url, body, format="multipart")
    urlencoded = client.generic("POST", url, "field_name=Parking&type=TEXT",
                                content_type="application/x-www-form-urlencoded")

    for refused in (as_form, urlencoded):
        assert refused.status_code == 415
        assert refused.json()["code"] == "unsupported_media_type"
    assert client.post(url, body, format="json").status_code == 202


# -- replies ---------------------------------------------------------------------------------

def test_the_schema_is_openapi_3_1_and_says_null_the_json_schema_way(schema):
    assert schema["openapi"] == "3.1.0"
    assert not [where for where, node in walk(schema) if "nullable" in node]
    accepted = schema["components"]["schemas"]["Listing"]["properties"]["accepted"]
    assert {"type": "null"} in accepted["oneOf"]
    assert {"$ref": "#/components/schemas/ListingAccepted"} in accepted["oneOf"]
    latest = schema["components"]["schemas"]["Hierarchy"]["properties"]["latest_change"]
    assert {"type": "null"} in latest["oneOf"]
    next_page = schema["components"]["schemas"]["PaginatedBusinessList"]["properties"]["next"]
    assert next_page["type"] == ["string", "null"]


def test_every_operation_documents_each_reply_of_the_plumbing_with_the_error_body(schema):
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, method, operation in operations(schema):
        responses = operation["responses"]
        expected = {"401", "403", "404", "429", "500", "503"}
        if operation.get("parameters") and any(p["in"] != "path"
                                               for p in operation["parameters"]):
            expected.add("400")
        if method in WRITES:
            expected.add("409")
        if "requestBody" in operation:
            expected |= {"400", "413", "415"}
        assert expected <= set(responses), (method, path, expected - set(responses))
        for status in expected:
            assert responses[status]["content"] == error, (method, path, status)
        retry_after = responses["429"]["headers"]["Retry-After"]
        assert retry_after["required"] is True
        assert retry_after["schema"]["type"] == "integer"
        assert "Retry-After" in responses["503"]["headers"]


def test_file_replies_are_bytes_to_a_generator_and_their_own_type_to_a_reader(schema):
    for path in ("/api/v1/t/{slug}/reports/render/", "/api/v1/t/{slug}/sent-reports/{id}/pdf/",
                 "/api/v1/t/{slug}/listings/export/"):
        content = schema["paths"][path]["get"]["responses"]["200"]["content"]
        assert list(content)[0] == "application/octet-stream", path
        assert len(content) >= 2
        assert all(entry["schema"] == {"type": "string", "format": "binary"}
                   for entry in content.values())


def test_a_client_asking_for_bytes_gets_the_pdf_as_octet_stream(api_member):
    client, membership = api_member(Role.VIEWER)
    url = reverse("api_report_render", args=[membership.reseller.slug])

    as_pdf = client.get(url)
    as_bytes = client.get(url, HTTP_ACCEPT="application/octet-stream")

    assert as_pdf.status_code == 200 and as_pdf["Content-Type"] == "application/pdf"
    assert as_bytes.status_code == 200
    assert as_bytes["Content-Type"] == "application/octet-stream"
    assert as_bytes.content.startswith(b"%PDF-")


def test_rules_beyond_the_schema_are_listed_in_the_operation_description(schema):
    operation = schema["paths"]["/api/v1/t/{slug}/custom-fields/"]["post"]
    rules = operation[CHECKED_BEYOND_SCHEMA]
    assert "field_name" in rules and "Idempotency-Key" in rules
    assert "Checked beyond this schema" in operation["description"]
    assert f"`field_name`: {rules['field_name']}" in operation["description"]


# -- strict input ----------------------------------------------------------------------------

@pytest.mark.parametrize("query", ["limit=abc", "limit=0", "limit=501", "limit=5_0",
                                   "limit=%D9%A3", "limit=1.5", "offset=-1", "offset=x"])
def test_limit_and_offset_outside_the_schema_are_refused_naming_them(api_member, query):
    client, membership = api_member(Role.VIEWER)
    url = reverse("api_business_list", args=[membership.reseller.slug])

    response = client.get(f"{url}?{query}")

    assert response.status_code == 400
    assert list(response.json()["fields"]) == [query.split("=")[0]]


def test_limit_and_offset_inside_the_schema_are_read(api_member, schema):
    client, membership = api_member(Role.VIEWER)
    for number in range(3):
        BusinessFactory(reseller=membership.reseller, remote_id=7000 + number)
    url = reverse("api_business_list", args=[membership.reseller.slug])

    page = client.get(f"{url}?limit=2&offset=1").json()
    widest = client.get(f"{url}?limit=500")

    assert page["count"] == 3 and len(page["results"]) == 2
    assert widest.status_code == 200
    limit = next(p for p in schema["paths"]["/api/v1/t/{slug}/businesses/"]["get"]["parameters"]
                 if p["name"] == "limit")
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 500)


def test_a_search_for_a_digit_that_is_no_number_answers(api_member):
    client, membership = api_member(Role.VIEWER)
    url = reverse("api_business_list", args=[membership.reseller.slug])
    assert client.get(url, {"q": "²"}).status_code == 200


# -- the check of every reply ----------------------------------------------------------------

def test_a_reply_whose_body_leaves_the_schema_fails_the_test(api_member, monkeypatch):
    client, membership = api_member(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    monkeypatch.setattr(BusinessDetail, "retrieve",
                        lambda self, *a, **k: Response({"business_number": "not a number"}))
    url = reverse("api_business_detail", args=[membership.reseller.slug, business.remote_id])

    with pytest.raises(ReplyOutsideSchema) as found:
        client.get(url)

    assert "business_number" in str(found.value)


def test_a_reply_of_an_undocumented_status_fails_the_test(api_member, monkeypatch):
    client, membership = api_member(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    monkeypatch.setattr(BusinessDetail, "retrieve",
                        lambda self, *a, **k: Response({"detail": "teapot"}, status=418))
    url = reverse("api_business_detail", args=[membership.reseller.slug, business.remote_id])

    with pytest.raises(ReplyOutsideSchema, match="418"):
        client.get(url)


def test_the_schema_checked_is_the_one_served(client, schema):
    served = json.loads(client.get(reverse("api_schema") + "?format=json").content)
    assert served == schema


def test_a_boolean_filter_takes_true_or_false_and_refuses_the_rest(api_member):
    from listings.models import Category

    client, membership = api_member(Role.VIEWER)
    reseller = membership.reseller
    for number, primary in ((1, True), (2, False)):
        Category.unscoped.create(reseller=reseller, source="PROFILE", country_code="US",
                                 remote_id=f"c{number}", name=f"Cafe {number}", primary=primary)
    url = reverse("api_category_list", args=[reseller.slug])

    primary_only = client.get(url, {"primary": "true"}).json()
    refused = client.get(url, {"primary": "6.3e307"})

    assert [row["id"] for row in primary_only["results"]] == ["c1"]
    assert refused.status_code == 400 and list(refused.json()["fields"]) == ["primary"]

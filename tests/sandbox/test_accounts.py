"""Child businesses (15), custom fields (6), hierarchy (9), AI-search configuration (14)."""

from __future__ import annotations

import re

import pytest

from sandbox.models import AiSearchConfig, Business, CustomField, HierarchyMapping
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB


# ------------------------------------------------------------------------ child businesses
def children(api, pid):
    return api.get("/v1/business/child/all", params={"pid": pid})


def test_children_of_the_account(api, seeded):
    items = children(api, seeded["account_number"]).json()
    types = {item["type"] for item in items}
    assert {"Reseller", "Enterprise-Location", "Enterprise-Product", "Business"} <= types
    for item in items:
        assert re.fullmatch(r"[A-Z][a-z]{2} \d\d, \d{4}", item["createdOn"])
        assert item["status"] in ("demo", "active", "inactive")
        if item["type"] == "Business":
            assert "childCount" not in item
            assert re.fullmatch(r"\(\d{3}\) \d{3}-\d{4}", item["phone"])
            assert set(item["address"]) == {
                "address1",
                "address2",
                "subLocality",
                "city",
                "state",
                "zip",
                "countryCode",
                "countryName",
            }
        else:
            assert "address" not in item and "phone" not in item
            assert item["childCount"] == Business.objects.get(number=item["id"]).children.count()


def test_walking_the_tree_finds_every_location(api, seeded):
    found, queue = set(), [seeded["account_number"]]
    while queue:
        for item in children(api, queue.pop()).json():
            if item["type"] == "Business":
                found.add(item["id"])
            else:
                queue.append(item["id"])
    assert found == set(seeded["location_numbers"])


def test_children_errors_and_leaves(api, seeded):
    assert children(api, seeded["location_numbers"][0]).json() == []
    assert_error(children(api, 1), 404, 1011)
    assert_error(api.get("/v1/business/child/all"), 400, 400)
    assert_error(children(api, "twelve"), 400, 400)
    countries = set(
        Business.objects.filter(number__in=seeded["location_numbers"]).values_list(
            "country_code", flat=True
        )
    )
    assert countries == {"US", "CA", "NZ", "UK"}


# ---------------------------------------------------------------------------- custom fields
def create_field(api, account, body):
    return api.post(
        "/v1/business/public/custom-fields/create",
        json=body,
        headers={"x-business-number": str(account)},
    )


def test_create_custom_field(api, seeded):
    body = {
        "fieldName": "Favourite Colour",
        "type": "DROPDOWN_MULTI",
        "defaultValue": "Blue",
        "dropDownOptions": ["Blue", "Green"],
        "fieldDescription": "For campaigns",
        "filterable": "true",
    }
    response = create_field(api, seeded["account_number"], body)
    assert response.status_code == 200
    result = response.json()
    assert set(result) == {"id", "fieldName", "created", "updated"}
    assert result["fieldName"] == "Favourite Colour" and isinstance(result["id"], int)
    assert result["created"] > 1_600_000_000_000 and result["updated"] >= result["created"]
    assert CustomField.objects.get(pk=result["id"]).filterable is True


def test_custom_field_codes(api, seeded, settings):
    account, enterprise = seeded["account_number"], seeded["enterprise_ids"][0]
    assert create_field(api, account, {"fieldName": "Shoe Size", "type": "NUMBER"}).ok
    # 5022: the same name in the same account, whatever the case; seeded names count too.
    for name in ("shoe size", "Loyalty Tier"):
        response = create_field(api, account, {"fieldName": name, "type": "TEXT"})
        body = assert_error(response, 400, 5022)
        assert body["message"] == "Another custom field with same name already present."
    # Another account may use the name.
    assert create_field(api, enterprise, {"fieldName": "Shoe Size", "type": "NUMBER"}).ok
    # 5039: the provider's own contact fields.
    for name in ("Email", "first_name", "Phone Number"):
        response = create_field(api, account, {"fieldName": name, "type": "TEXT"})
        body = assert_error(response, 400, 5039)
        assert body["message"] == "Custom field name cannot be a reserved keyword."
    # 5040: too many fields in the account (two seeded plus Shoe Size).
    settings.SANDBOX_CUSTOM_FIELD_LIMIT = 4
    assert create_field(api, account, {"fieldName": "Fourth", "type": "TEXT"}).ok
    response = create_field(api, account, {"fieldName": "Fifth", "type": "TEXT"})
    body = assert_error(response, 400, 5040)
    assert body["message"] == "Max limit reached for custom fields."


@pytest.mark.parametrize("field_type", ["COLOUR", "text", "DROPDOWN"])
def test_an_unknown_custom_field_type_is_5031(api, seeded, field_type):
    response = create_field(api, seeded["account_number"], {"fieldName": "A", "type": field_type})
    body = assert_error(response, 400, 5031)
    assert body["message"] == "Method not implemented for unknown custom field type."
    assert not CustomField.objects.filter(field_name="A").exists()


@pytest.mark.parametrize("sent", [b"", b"  ", b"null"])
def test_a_custom_field_request_without_a_body_is_5023(api, seeded, sent):
    response = api.post("/v1/business/public/custom-fields/create", data=sent,
                        headers={"x-business-number": str(seeded["account_number"]),
                                 "Content-Type": "application/json"})
    body = assert_error(response, 400, 5023)
    assert body["message"] == "Custom field request dto cannot be null."


def test_custom_field_bad_input(api, seeded):
    for body in [
        {"type": "TEXT"},
        {"fieldName": "", "type": "TEXT"},
        {"fieldName": "A"},
        {"fieldName": "A", "type": "TEXT", "dropDownOptions": ["x"]},
        {"fieldName": "A", "type": "DROPDOWN_SINGLE"},
        {"fieldName": "A", "type": "TEXT", "filterable": "yes"},
        {"fieldName": 7, "type": "TEXT"},
        ["fieldName"],
    ]:
        assert_error(create_field(api, seeded["account_number"], body), 400, 400)
    response = api.post("/v1/business/public/custom-fields/create", json={"fieldName": "A"})
    assert_error(response, 400, 400)
    assert_error(create_field(api, 999, {"fieldName": "A", "type": "TEXT"}), 404, 1011)


# -------------------------------------------------------------------------------- hierarchy
def update_mapping(api, number, body):
    return api.post(f"/v1/business/business-hierarchy/location/update-mapping/{number}", json=body)


def test_update_replaces_the_whole_mapping(api, location):
    response = update_mapping(api, location.number, {"Region": "West", "District": "D1"})
    assert response.status_code == 200 and response.content == b""
    assert update_mapping(api, location.number, {"Region": "East"}).status_code == 200
    assert HierarchyMapping.objects.get(location=location).levels == {"Region": "East"}


def test_hierarchy_errors(api, seeded, location):
    assert_error(update_mapping(api, location.number, ["Region"]), 400, 400)
    assert_error(update_mapping(api, location.number, {"Region": 3}), 400, 400)
    # The provider files an unknown business under 401 on this operation.
    body = assert_error(update_mapping(api, 4242, {"Region": "X"}), 401, 1011)
    assert body["message"] == "Business id is invalid"
    response = update_mapping(api, seeded["enterprise_ids"][0], {"Region": "X"})
    body = assert_error(response, 400, 1043)
    assert body["message"] == "Business should be either SMB or Enterprise sub account"


# -------------------------------------------------------------------------------- AI search
def ai_config(api, number):
    return api.get(
        "/v1/listing/searchAi/public/account-setup", headers={"x-business-number": str(number)}
    )


def test_ai_search_configuration(api, seeded, enterprise):
    body = ai_config(api, enterprise.number).json()
    assert set(body) == {"frequency", "quota", "billingType", "themes"}
    stored = AiSearchConfig.objects.get(business=enterprise)
    assert (body["quota"], body["billingType"]) == (stored.quota, "CREDIT_SYSTEM")
    for theme in body["themes"]:
        assert isinstance(theme["theme"], str) and all(isinstance(p, str) for p in theme["prompts"])
    # A location without its own configuration reads its enterprise's.
    location = enterprise.children.first()
    assert ai_config(api, location.number).json() == body
    assert_error(api.get("/v1/listing/searchAi/public/account-setup"), 400, 400)
    assert_error(ai_config(api, 17), 404, 1011)

"""Create custom field (6), update hierarchy (9), AI-search configuration (14) and child
businesses (15)."""

from __future__ import annotations

import time

import pytest

from provider import Rejected
from provider.types import AiSearchConfiguration, ChildBusiness, CustomField, CustomFieldSpec
from sandbox.catalog import COUNTRY_NAMES
from sandbox.formats import month_day_year
from sandbox.models import (
    AiSearchConfig,
    Business,
    HierarchyMapping,
)
from sandbox.models import (
    CustomField as StoredField,
)

from .conftest import LIVE_DB

pytestmark = LIVE_DB


def test_create_custom_field_then_the_same_name_again(client, ids):
    spec = CustomFieldSpec(
        field_name="Favourite Store",
        type="DROPDOWN_MULTI",
        default_value="Downtown",
        drop_down_options=("Downtown", "Airport"),
        field_description="Where the customer shops",
        filterable=True,
    )
    started = int(time.time() * 1000)

    field = client.create_custom_field(ids.account, spec)

    assert isinstance(field, CustomField)
    row = StoredField.objects.get(pk=field.id)
    assert field.field_name == row.field_name == "Favourite Store"
    assert row.owner.number == ids.account
    assert (row.type, row.default_value, row.dropdown_options) == (
        "DROPDOWN_MULTI",
        "Downtown",
        ["Downtown", "Airport"],
    )
    assert row.description == "Where the customer shops"
    assert row.filterable is True  # the client sends "true" as a string
    assert started - 5000 <= field.created <= field.updated <= started + 60_000

    with pytest.raises(Rejected) as caught:
        client.create_custom_field(ids.account, {"fieldName": "FAVOURITE store", "type": "TEXT"})
    assert (caught.value.code, caught.value.http_status) == (5022, 400)
    assert caught.value.outcome_unknown is False
    assert StoredField.objects.filter(owner__number=ids.account).count() == 3  # 2 seeded + 1

    # Another account may use the name; a plain TEXT field is not filterable by default.
    other = client.create_custom_field(ids.enterprise, CustomFieldSpec("Favourite Store", "TEXT"))
    row = StoredField.objects.get(pk=other.id)
    assert (row.owner.number, row.filterable, row.dropdown_options) == (ids.enterprise, False, [])

    with pytest.raises(Rejected) as reserved:
        client.create_custom_field(ids.account, CustomFieldSpec("E-mail", "TEXT"))
    assert reserved.value.code == 5039


def test_update_hierarchy_stores_and_replaces_the_mapping(client, ids):
    assert client.update_hierarchy(ids.location, {"Region": "West", "District": "Bay Area"}) is None
    stored = HierarchyMapping.objects.get(location__number=ids.location)
    assert stored.levels == {"Region": "West", "District": "Bay Area"}

    client.update_hierarchy(ids.location, {"Region": "East"})
    stored.refresh_from_db()
    assert stored.levels == {"Region": "East"}  # the whole mapping is replaced


def test_update_hierarchy_needs_a_location(client, ids):
    for number in (ids.account, ids.enterprise):
        with pytest.raises(Rejected) as caught:
            client.update_hierarchy(number, {"Region": "West"})
        assert (caught.value.code, caught.value.http_status) == (1043, 400)
    assert not HierarchyMapping.objects.filter(levels={"Region": "West"}).exists()


def check_configuration(result: AiSearchConfiguration, stored: AiSearchConfig) -> None:
    assert isinstance(result, AiSearchConfiguration)
    assert (result.frequency, result.quota, result.billing_type) == (
        stored.frequency,
        stored.quota,
        stored.billing_type,
    )
    assert [(t.theme, list(t.prompts)) for t in result.themes] == [
        (t["theme"], t["prompts"]) for t in stored.themes
    ]
    assert result.themes


def test_ai_search_configuration_of_the_account_and_of_a_location(client, ids):
    check_configuration(
        client.ai_search_configuration(ids.account),
        AiSearchConfig.objects.get(business__number=ids.account),
    )
    # A location has none of its own: its enterprise's applies.
    check_configuration(
        client.ai_search_configuration(ids.location),
        AiSearchConfig.objects.get(business__number=ids.enterprise),
    )


def test_child_businesses_of_the_account(client, ids):
    children = client.child_businesses(ids.account)
    account = Business.objects.get(number=ids.account)
    stored = list(Business.objects.filter(parent=account).order_by("number"))
    assert [c.id for c in children] == [b.number for b in stored]
    for child, business in zip(children, stored, strict=True):
        assert isinstance(child, ChildBusiness)
        assert (child.name, child.alias, child.type, child.status) == (
            business.name,
            business.alias,
            business.type,
            business.status,
        )
        assert child.created_on == month_day_year(business.created_on)
        assert child.created_by == business.created_by
        assert child.child_count == business.children.count()
        assert child.address is None and child.phone is None  # not a location

    # An enterprise's children are its locations, with address and phone; a location has none.
    children = client.child_businesses(ids.enterprise)
    stored = list(Business.objects.filter(parent__number=ids.enterprise).order_by("number"))
    assert [c.id for c in children] == [b.number for b in stored] and children
    for child, location in zip(children, stored, strict=True):
        assert child.type == "Business" and child.child_count is None
        assert child.phone == location.phone
        assert child.address == {
            "address1": location.address1,
            "address2": location.address2,
            "subLocality": location.sub_locality,
            "city": location.city,
            "state": location.state,
            "zip": location.zip,
            "countryCode": location.country_code,
            "countryName": COUNTRY_NAMES[location.country_code],
        }
    assert client.child_businesses(ids.location) == []

"""The listing document's shape: a field the provider's listing does not have, at any depth, is
refused with its dotted path by the one check every way into a listing runs (the API's body and
the service that stores and sends a version), before anything is stored."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import Role
from listings.editor.document import (
    LISTING_DOCUMENT_SCHEMA,
    UNKNOWN_FIELD,
    UNKNOWN_SECTION,
    listing_unknown_fields,
)
from listings.editor.services import listing_submit
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory

HOURS = [{"day": 0, "isOpen": 1, "workingHours": [{"startHour": 28800, "endHour": 61200}]}]


def test_a_document_of_known_fields_has_none_unknown():
    document = {
        "businessInfo": {"name": "Harbour Lights Cafe", "phone": "(206) 555-0142",
                         "location": {"city": "Seattle", "zip": 98101, "countryCode": "US"},
                         "serviceAreas": [{"description": "Downtown"}]},
        "additionalInfo": {"hoursOfOperations": HOURS, "moreHours": {"Kitchen": HOURS},
                           "specialHours": [{"specialDate": "12/24/2026", "isOpen": 0}]},
        "profileListing": {"attributes": {"Service": [{"attributeId": "wifi", "value": True}]},
                           "hotelAttributes": {"policies": {"policies": {
                               "pets": {"attributeId": "pets", "value": "yes"}}}}},
        "mapsListing": {"mapsLocationAttributes": {"Access": [{"attributeId": "ramp"}]}},
    }
    assert listing_unknown_fields(document) == {}


@pytest.mark.parametrize(("document", "paths"), [
    ({"businessInfo": {"name": "x", "bogusField": "x"}}, ["businessInfo.bogusField"]),
    ({"businessInfo": {"name": "x"}, "additionalInfo": {"description": "y"}},
     ["additionalInfo.description"]),
    ({"businessInfo": {"name": "x", "location": {"city": "A", "planet": "Mars"}}},
     ["businessInfo.location.planet"]),
    ({"businessInfo": {"name": "x"}, "additionalInfo": {"hoursOfOperations": [
        HOURS[0], {"day": 1, "isOpen": 1, "note": "", "workingHours": [
            {"startHour": 1, "endHour": 2, "minutes": 3}]}]}},
     ["additionalInfo.hoursOfOperations[1].note",
      "additionalInfo.hoursOfOperations[1].workingHours[0].minutes"]),
    ({"businessInfo": {"name": "x"}, "additionalInfo": {"moreHours": {"Kitchen": [
        {"day": 1, "isOpen": 0, "label": "late"}]}}},
     ["additionalInfo.moreHours.Kitchen[0].label"]),
])
def test_an_unknown_field_at_any_depth_is_named_by_its_path(document, paths):
    found = listing_unknown_fields(document)
    assert list(found) == paths
    assert all(messages == [UNKNOWN_FIELD] for messages in found.values())


def test_an_unknown_section_and_a_prefix():
    assert listing_unknown_fields({"openingTimes": {}}) == {"openingTimes": [UNKNOWN_SECTION]}
    assert listing_unknown_fields({"media": {"banner": "x"}}, prefix="set") == {
        "set.media.banner": [UNKNOWN_FIELD]}


def test_every_object_of_the_schema_is_closed_or_a_mapping_of_free_names():
    def objects(node):
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(LISTING_DOCUMENT_SCHEMA))
    assert len(found) > 30
    for schema in found:
        closed = schema.get("additionalProperties") is False and "properties" in schema
        mapping = isinstance(schema.get("additionalProperties"), dict)
        assert closed or mapping, schema


@pytest.mark.django_db
def test_the_service_refuses_an_unknown_field_before_storing_anything():
    business = BusinessFactory()
    with tenant_scope(business.reseller), pytest.raises(ValidationError) as refused:
        listing_submit(tenant=business.reseller, actor=None, business=business,
                       payload={"businessInfo": {"name": "Cafe", "bogusField": "x"}})
    assert refused.value.message_dict == {"businessInfo.bogusField": [UNKNOWN_FIELD]}
    assert not ListingVersion.unscoped.exists() and not OutboxEntry.unscoped.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "path"), [
    ({"businessInfo": {"name": "Cafe", "bogusField": "x"}}, "businessInfo.bogusField"),
    ({"businessInfo": {"name": "Cafe"}, "additionalInfo": {"description": "A cafe"}},
     "additionalInfo.description"),
    ({"businessInfo": {"name": "Cafe"}, "additionalInfo": {"hoursOfOperations": [
        {"day": 0, "isOpen": 1, "workingHours": [{"startHour": 1, "endHour": 2, "x": 0}]}]}},
     "additionalInfo.hoursOfOperations[0].workingHours[0].x"),
])
def test_the_api_answers_400_naming_the_path_and_stores_nothing(api_member, body, path):
    client, membership = api_member(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    url = reverse("api_listing_submission_list",
                  args=[membership.reseller.slug, business.remote_id])

    response = client.post(url, body, format="json")

    assert response.status_code == 400
    assert response.json()["fields"] == {path: [UNKNOWN_FIELD]}
    assert not ListingVersion.unscoped.exists() and not OutboxEntry.unscoped.exists()

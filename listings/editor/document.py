"""The shape of a listing document: the create-listing body (spec/interface.md, "Listing
(create payload)"), every field the provider knows at every depth, as a JSON Schema.

`listing_unknown_fields` is the check every way into a listing runs (the API's body, the
service that stores and sends a version): a field the provider does not know, at any depth, is
refused with its dotted path before anything is stored, instead of being stored, queued and
refused by the provider later. The same schema describes the body in the API's reference.

Objects whose keys are free names (hour labels, attribute groups and keys) take any key; every
other object takes only the fields named here. Types are stated as the provider's body has
them; the listing editor's rules (`listings.editor.editor.listing_errors`) judge the values.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from jsonschema import Draft202012Validator

from listings.editor.schema import BUSINESS_STATUSES, SOCIAL_PROFILE_URL_FIELDS

STRING: dict = {"type": "string"}
BOOLEAN: dict = {"type": "boolean"}
FLAG: dict = {"type": "integer", "enum": [0, 1], "description": "1 for yes, 0 for no."}
STRINGS: dict = {"type": "array", "items": STRING}
URL: dict = {"type": "string", "description": "An http(s) address; empty for none."}
DATE: dict = {"type": "string", "description": "A day, MM/DD/YYYY; empty for none."}
# Seconds since midnight; an empty string on a closed day.
HOUR: dict = {"oneOf": [{"type": "integer", "minimum": 0, "maximum": 86400},
                        {"type": "string", "maxLength": 0}],
              "description": "Seconds since midnight (0 to 86400); \"\" on a closed day."}


def _object(properties: dict[str, dict], *, required: tuple[str, ...] = (),
            description: str = "") -> dict:
    schema: dict[str, Any] = {"type": "object", "properties": properties,
                              "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    if description:
        schema["description"] = description
    return schema


def _named(value: dict, *, description: str) -> dict:
    """An object whose keys are free names (a label, a group), each holding `value`."""
    return {"type": "object", "additionalProperties": value, "description": description}


def _fields(names: str, schema: dict) -> dict[str, dict]:
    return dict.fromkeys(names.split(), schema)


WORKING_HOURS = _object({"startHour": HOUR, "endHour": HOUR}, required=("startHour", "endHour"))
DAY_ENTRY = _object(
    {"day": {"type": "integer", "minimum": 0, "maximum": 6,
             "description": "0 for Monday to 6 for Sunday."},
     "isOpen": FLAG,
     "workingHours": {"type": "array", "items": WORKING_HOURS}},
    required=("day", "isOpen"), description="One weekday's opening hours.")
DAY_ENTRIES: dict = {"type": "array", "items": DAY_ENTRY}
SPECIAL_HOURS_ENTRY = _object(
    {"specialDate": DATE, "startHour": HOUR, "endHour": HOUR, "isOpen": FLAG},
    required=("specialDate", "isOpen"), description="The hours of one special day.")
ATTRIBUTE = _object({"attributeId": STRING, "attributeName": STRING, "value": BOOLEAN},
                    required=("attributeId", "value"))
HOTEL_ATTRIBUTE = _object(
    {"attributeId": STRING, "attributeName": STRING,
     "value": {"type": ["number", "string", "boolean"]}},
    required=("attributeId", "value"))
HOTEL_ATTRIBUTE_GROUPS = ("business", "policies", "property", "services")

SECTIONS: dict[str, dict] = {
    "businessInfo": _object({
        "name": {"type": "string", "minLength": 1},
        "phone": {"type": "string", "description": "Shaped (xxx) xxx-xxxx."},
        "websiteUrl": URL,
        "emailId": STRING,
        **_fields("isAddressHidden isServiceAreaProvider", BOOLEAN),
        "mainBusinessDescription": STRING,
        "serviceAreas": {"type": "array", "items": _object({"description": STRING},
                                                           required=("description",))},
        "location": _object({
            **_fields("address1 address2 subLocality city state", STRING),
            "zip": {"type": ["string", "integer"]},
            "countryCode": {"type": "string", "description": "Two letters, such as US."},
        }),
    }, required=("name",), description="The business's name, contact and address; `name` is "
                                       "always required."),
    "additionalInfo": _object({
        **_fields("establishedYear keywords services products impressum", STRING),
        **_fields("additionalPaymentTypes localPhoneNumber tollFreePhoneNumber", STRING),
        "timezone": {"type": "string", "description": "An IANA time zone, such as "
                                                      "America/Chicago."},
        "languages": STRINGS,
        "paymentTypes": STRINGS,
        "moreHours": _named(DAY_ENTRIES, description="Label -> day entries."),
        "mapsMoreHours": _named(DAY_ENTRIES, description="Label -> day entries."),
        "wholeWeekOperating": FLAG,
        "hoursOfOperations": DAY_ENTRIES,
        "specialHours": {"type": "array", "items": SPECIAL_HOURS_ENTRY},
        "businessStatus": {"type": "string", "enum": list(BUSINESS_STATUSES)},
        **_fields("reopenDate openingSoonDate openedOnDate", DATE),
        **_fields("appointmentLink reservationLink menuLink orderAheadLink", URL),
        **_fields("iosAppURL androidAppURL", URL),
    }, description="Hours, status, payment and the other details of the business."),
    "profileListing": _object({
        **_fields("profileStoreId profilePhoneNumber primaryCategoryProfile", STRING),
        **_fields("profileDescription textMessageNumber", STRING),
        **_fields("profileWebsiteUrl messagingBusinessLink foodDelivery foodTakeout", URL),
        "additionalCategories": STRINGS,
        "attributes": _named({"type": "array", "items": ATTRIBUTE},
                             description="Attribute group -> attributes."),
        "hotelAttributes": _object({
            group: _object({group: _named(HOTEL_ATTRIBUTE,
                                          description="Attribute key -> attribute.")},
                           required=(group,))
            for group in HOTEL_ATTRIBUTE_GROUPS}),
    }, description="The business-profile platform's listing."),
    "mapsListing": _object({
        "primaryCategory": {"type": "string", "description": "A dotted category path, such "
                                                             "as Food.Restaurant."},
        "mapsWebsiteUrl": URL,
        "additionalCategories": STRINGS,
        "mapsLocationAttributes": _named(
            {"type": "array", "items": _object({"attributeId": STRING},
                                               required=("attributeId",))},
            description="Attribute group -> attributes."),
        "mapsActionLinks": {"type": "array", "items": _object(
            {"id": STRING, "deepLinkUrl": URL, "appStoreUrl": URL},
            required=("id", "deepLinkUrl"))},
        "phoneNumber": {"type": "string", "description": "International, such as "
                                                         "+1 555 010 0199."},
        **_fields("mapsBusinessName mapsBusinessDescription", STRING),
    }, description="The maps service's listing."),
    "engineListing": _object({
        **_fields("primaryCategoryEngine engineDescription enginePhoneNumber", STRING),
        "engineCategories": STRINGS,
    }, description="The search engine's listing."),
    "socialListing": _object({
        **_fields("socialDescription socialPhoneNumber", STRING),
        "categories": STRINGS,
    }, description="The social network's listing."),
    "internalListing": _object({
        **_fields("description category displayCategory", STRING),
        "subCategories": STRINGS,
    }, description="The provider's own listing."),
    "thirdPartyListing": _object({
        "thirdPartyCategory": STRING,
        "thirdPartySubCategories": STRINGS,
    }, description="Third-party directories' categories."),
    "media": _object(_fields("logoUrl coverImageUrl profileCover socialCover", URL),
                     description="Addresses of the logo and cover pictures."),
    "optOut": _object(_fields("profileCoverOptOut profileLogoOptOut socialCoverOptOut "
                              "socialLogoOptOut profileListingOptOut businessProfileOptOut",
                              BOOLEAN),
                      description="What not to publish."),
    "socialProfileURLs": _object(dict.fromkeys(SOCIAL_PROFILE_URL_FIELDS, URL),
                                 description="The business's profiles on other networks."),
    "healthcare": _object({
        "doctorCategories": {"type": "array", "items": {
            "type": "string", "description": "Shaped Specialty > Subspecialty."}},
        "isProvider": BOOLEAN,
        **_fields("practiceName firstName middleName surName npi credentials university "
                  "hospitalAffiliations insurancesAccepted", STRING),
    }, description="A healthcare provider's details."),
    "covidInfo": _object({
        "postDescription": STRING,
        **_fields("covid19SupportLink virtualCareLink", URL),
    }, description="A post and links about the business's health measures."),
}

UNKNOWN_FIELD = "Unknown field: the provider's listing has no field of this name here."
UNKNOWN_SECTION = "Unknown section: the provider's listing has no section of this name."

LISTING_SECTIONS = tuple(SECTIONS)

# The whole body: only what changes, `businessInfo.name` always.
LISTING_DOCUMENT_SCHEMA: dict = _object(SECTIONS, required=("businessInfo",))


def listing_document_schema(*, required: bool = True) -> dict:
    """A copy of the document's schema; without `required`, that of a part of a listing (a
    bulk change's `set`), where no field is required."""
    schema = copy.deepcopy(LISTING_DOCUMENT_SCHEMA)
    if not required:
        schema.pop("required")
        schema["properties"]["businessInfo"].pop("required")
    return schema


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(listing_document_schema(required=False))


def _path(parts) -> str:
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def listing_unknown_fields(document: Any, *, prefix: str = "") -> dict[str, list[str]]:
    """The fields of `document` (a listing, or a part of one) that the provider does not know,
    at any depth: dotted path (under `prefix`) -> message; empty when there is none."""
    found: dict[str, list[str]] = {}
    for error in _validator().iter_errors(document):
        if error.validator != "additionalProperties" or error.validator_value is not False:
            continue
        known = set(error.schema.get("properties", {}))
        for name in sorted(str(key) for key in error.instance if key not in known):
            found[_path([*filter(None, [prefix]), *error.absolute_path, name])] = [
                UNKNOWN_FIELD if error.absolute_path else UNKNOWN_SECTION]
    return dict(sorted(found.items()))

"""Tests of sandbox.listing_rules: shape checks, the create-listing error table and its order."""

from __future__ import annotations

import copy
import datetime
import re
from collections.abc import Callable
from typing import Any

import pytest

from sandbox.listing_rules import (
    SOCIAL_PROFILE_URL_FIELDS,
    ListingError,
    validate_listing,
)

TODAY = datetime.date(2025, 6, 15)
YESTERDAY = "06/14/2025"
TOMORROW = "06/16/2025"
NINE_TO_FIVE = {"startHour": 32400, "endHour": 61200}
CLOSED_DAY_HOURS = {"startHour": "", "endHour": ""}
DELETE = object()  # marks a field to remove instead of set


def day(number: int, *ranges: dict[str, Any], is_open: int = 1) -> dict[str, Any]:
    # Fresh range dicts, so that a test changing one day leaves the others alone.
    return {"day": number, "isOpen": is_open, "workingHours": [dict(r) for r in ranges]}


def week() -> list[dict[str, Any]]:
    return [
        day(0, NINE_TO_FIVE),
        day(1, NINE_TO_FIVE),
        day(2, NINE_TO_FIVE),
        day(3, NINE_TO_FIVE),
        # Split shift: lunch and dinner.
        day(4, {"startHour": 39600, "endHour": 50400}, {"startHour": 61200, "endHour": 79200}),
        day(5, {"startHour": 36000, "endHour": 86400}),
        day(6, CLOSED_DAY_HOURS, is_open=0),
    ]


def valid_payload() -> dict[str, Any]:
    """A realistic body touching every top-level object of the spec."""
    return {
        "businessInfo": {
            "name": "Harbor Pizza Kitchen",
            "phone": "(555) 010-0199",
            "websiteUrl": "https://harborpizza.example.com",
            "emailId": "owner@harborpizza.example.com",
            "isAddressHidden": False,
            "isServiceAreaProvider": True,
            "mainBusinessDescription": "Wood-fired pizza since 1998.",
            "serviceAreas": [{"description": "Downtown"}, {"description": "Harbor District"}],
            "location": {
                "address1": "12 Pier Road",
                "address2": "Suite 4",
                "subLocality": "",
                "city": "Portland",
                "state": "ME",
                "zip": 4101,
                "countryCode": "US",
            },
        },
        "additionalInfo": {
            "establishedYear": "1998",
            "timezone": "America/New_York",
            "languages": ["English", "Spanish"],
            "moreHours": {"Delivery": week()},
            "mapsMoreHours": {"Takeout": week()},
            "wholeWeekOperating": 0,
            "hoursOfOperations": week(),
            "specialHours": [
                {"specialDate": "12/25/2025", "startHour": "", "endHour": "", "isOpen": 0},
                {"specialDate": "12/31/2025", "startHour": 36000, "endHour": 50400, "isOpen": 1},
                {"specialDate": "12/31/2025", "startHour": 61200, "endHour": 72000, "isOpen": 1},
            ],
            "businessStatus": "Open",
            "reopenDate": "07/01/2025",
            "openedOnDate": "05/01/1998",
            "keywords": "pizza, calzone, wood-fired",
            "services": "catering, delivery",
            "products": "pizza, salads",
            "appointmentLink": "",
            "reservationLink": "https://harborpizza.example.com/reserve",
            "menuLink": "https://harborpizza.example.com/menu",
            "orderAheadLink": "https://harborpizza.example.com/order",
            "impressum": "",
            "paymentTypes": ["cash", "credit card", "contactless"],
            "additionalPaymentTypes": "gift cards, vouchers",
            "localPhoneNumber": "(555) 010-0199",
            "tollFreePhoneNumber": "",
            "iosAppURL": "https://apps.example.com/ios/harbor-pizza",
            "androidAppURL": "https://apps.example.com/android/harbor-pizza",
        },
        "media": {
            "logoUrl": "https://cdn.example.com/harbor/logo.png",
            "coverImageUrl": "https://cdn.example.com/harbor/cover.jpg",
            "profileCover": "https://cdn.example.com/harbor/profile-cover.jpg",
            "socialCover": "https://cdn.example.com/harbor/social-cover.jpg",
        },
        "optOut": {
            "profileCoverOptOut": False,
            "profileLogoOptOut": False,
            "socialCoverOptOut": True,
            "socialLogoOptOut": False,
            "profileListingOptOut": False,
            "businessProfileOptOut": False,
        },
        "covidInfo": {
            "postDescription": "Outdoor seating available.",
            "covid19SupportLink": "https://harborpizza.example.com/safety",
            "virtualCareLink": "",
        },
        "engineListing": {
            "primaryCategoryEngine": "Pizza restaurant",
            "engineDescription": "Wood-fired pizza on the pier.",
            "engineCategories": ["Pizza", "Italian"],
            "enginePhoneNumber": "(555) 010-0199",
        },
        "internalListing": {
            "description": "Family-run pizzeria.",
            "category": "Restaurants",
            "subCategories": ["Pizza"],
            "displayCategory": "Pizza",
        },
        "socialListing": {
            "socialDescription": "Follow us for daily specials.",
            "socialPhoneNumber": "(555) 010-0199",
            "categories": ["Pizza Place"],
        },
        "thirdPartyListing": {
            "thirdPartyCategory": "Restaurants",
            "thirdPartySubCategories": ["Pizza", "Italian"],
        },
        "profileListing": {
            "profileWebsiteUrl": "https://harborpizza.example.com",
            "profileStoreId": "HPK-001",
            "profilePhoneNumber": "(555) 010-0199",
            "primaryCategoryProfile": "Pizza restaurant",
            "profileDescription": "Wood-fired pizza since 1998.",
            "additionalCategories": ["Italian restaurant", "Takeout restaurant"],
            "attributes": {
                "Service options": [
                    {"attributeId": "has_delivery", "attributeName": "Delivery", "value": True},
                    {"attributeId": "has_takeout", "attributeName": "Takeout", "value": True},
                ],
            },
            "hotelAttributes": {
                "business": {"business": {"wifi": _hotel("wifi", True)}},
                "policies": {"policies": {"checkinTime": _hotel("checkin_time", "15:00")}},
                "property": {"property": {"rooms": _hotel("room_count", 12)}},
                "services": {"services": {"frontDesk": _hotel("front_desk", False)}},
            },
            "foodDelivery": "https://delivery.example.com/harbor-pizza",
            "foodTakeout": "https://takeout.example.com/harbor-pizza",
            "messagingBusinessLink": "https://messaging.example.com/harbor-pizza",
            "textMessageNumber": "(555) 010-0199",
        },
        "mapsListing": {
            "primaryCategory": "Food.Restaurant.Pizza",
            "mapsWebsiteUrl": "https://harborpizza.example.com",
            "additionalCategories": ["Food.Restaurant.Italian"],
            "mapsLocationAttributes": {"Accessibility": [{"attributeId": "wheelchair_entrance"}]},
            "mapsActionLinks": [
                {
                    "id": "order",
                    "deepLinkUrl": "https://harborpizza.example.com/order",
                    "appStoreUrl": "",
                }
            ],
            "phoneNumber": "+1 555 010 0199",
            "mapsBusinessName": "Harbor Pizza Kitchen",
            "mapsBusinessDescription": "Wood-fired pizza on the pier.",
        },
        "socialProfileURLs": {
            name: f"https://{name.lower()}.example.com/harbor-pizza"
            for name in SOCIAL_PROFILE_URL_FIELDS
        },
        "healthcare": {
            "doctorCategories": ["Dentistry > Pediatric Dentistry"],
            "isProvider": False,
            "practiceName": "",
            "firstName": "",
            "middleName": "",
            "surName": "",
            "npi": "",
            "credentials": "",
            "university": "",
            "hospitalAffiliations": "",
            "insurancesAccepted": "",
        },
    }


def _hotel(attribute_id: str, value: Any) -> dict[str, Any]:
    return {"attributeId": attribute_id, "attributeName": attribute_id.title(), "value": value}


# --------------------------------------------------------------------------- helpers
_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [int(index) if index else key for key, index in _PATH_TOKEN.findall(path)]


def set_field(payload: dict[str, Any], path: str, value: Any) -> None:
    """Set (or with DELETE, remove) the value at a path such as `a.b[0].c`."""
    *parents, last = _steps(path)
    target: Any = payload
    for step in parents:
        target = target[step]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value


def payload_with(path: str, value: Any) -> dict[str, Any]:
    payload = valid_payload()
    set_field(payload, path, value)
    return payload


def rejection(payload: Any, previous: dict | None = None) -> ListingError:
    with pytest.raises(ListingError) as caught:
        validate_listing(payload, previous=previous, today=TODAY)
    return caught.value


def accept(payload: Any, previous: dict | None = None) -> dict:
    return validate_listing(payload, previous=previous, today=TODAY)


# ------------------------------------------------------------------------- acceptance
def test_full_valid_payload_is_accepted_as_an_equal_deep_copy() -> None:
    payload = valid_payload()

    stored = accept(payload)

    assert stored == valid_payload()
    assert stored is not payload
    assert (
        stored["additionalInfo"]["hoursOfOperations"]
        is not payload["additionalInfo"]["hoursOfOperations"]
    )


def test_returned_copy_does_not_share_state_with_the_request() -> None:
    payload = valid_payload()
    stored = accept(payload)

    stored["profileListing"]["additionalCategories"].append("Bar")

    assert payload["profileListing"]["additionalCategories"] == [
        "Italian restaurant",
        "Takeout restaurant",
    ]


def test_minimal_payload_needs_only_a_business_name() -> None:
    assert accept({"businessInfo": {"name": "Corner Deli"}}) == {
        "businessInfo": {"name": "Corner Deli"}
    }


def test_strings_are_trimmed_and_no_keys_are_added() -> None:
    payload = {"businessInfo": {"name": "  Corner Deli ", "phone": " (555) 010-0199 "}}

    assert accept(payload) == {"businessInfo": {"name": "Corner Deli", "phone": "(555) 010-0199"}}


@pytest.mark.parametrize(
    "path",
    ["businessInfo.mainBusinessDescription", "internalListing.description"],
)
def test_empty_string_clears_are_kept(path: str) -> None:
    stored = accept(payload_with(path, "  "))

    section, name = path.split(".")
    assert stored[section][name] == ""


@pytest.mark.parametrize(
    "path",
    [
        "businessInfo.phone",
        "businessInfo.websiteUrl",
        "businessInfo.emailId",
        "businessInfo.location.zip",
        "businessInfo.location.countryCode",
        "additionalInfo.timezone",
        "additionalInfo.reopenDate",
        "additionalInfo.openedOnDate",
        "additionalInfo.menuLink",
        "media.logoUrl",
        "mapsListing.primaryCategory",
        "mapsListing.phoneNumber",
        "profileListing.foodDelivery",
        "socialProfileURLs.videoUrl",
    ],
)
def test_empty_string_means_not_set_for_formatted_fields(path: str) -> None:
    assert accept(payload_with(path, "")) is not None


@pytest.mark.parametrize("zip_code", [4101, "04101", "SW1A 1AA"])
def test_zip_accepts_numbers_and_strings(zip_code: Any) -> None:
    stored = accept(payload_with("businessInfo.location.zip", zip_code))

    assert stored["businessInfo"]["location"]["zip"] == zip_code


def test_several_working_hour_ranges_per_day_are_accepted() -> None:
    ranges = [
        {"startHour": 25200, "endHour": 39600},
        {"startHour": 43200, "endHour": 57600},
        {"startHour": 61200, "endHour": 79200},
    ]
    stored = accept(payload_with("additionalInfo.hoursOfOperations[0].workingHours", ranges))

    assert stored["additionalInfo"]["hoursOfOperations"][0]["workingHours"] == ranges


@pytest.mark.parametrize("hours", [0, 32400, 86400])
def test_a_more_hours_range_that_starts_where_it_ends_is_accepted(hours: int) -> None:
    """The provider states no order of a range's hours, and its own example body has such a
    range: it is not refused, nor compared with the day's other ranges."""
    ranges = [{"startHour": hours, "endHour": hours}, NINE_TO_FIVE]
    payload = payload_with("additionalInfo.moreHours.Delivery[0].workingHours", ranges)
    set_field(payload, "additionalInfo.mapsMoreHours.Takeout[0].workingHours", ranges[:1])
    set_field(payload, "additionalInfo.hoursOfOperations[0].workingHours", ranges[:1])

    assert accept(payload)["additionalInfo"]["moreHours"]["Delivery"][0]["workingHours"] == ranges


def test_a_range_that_ends_before_it_starts_is_refused() -> None:
    """A night is sent as two days (parameters.md: hours are seconds since that day's
    midnight)."""
    ranges = [{"startHour": 72000, "endHour": 7200}]
    error = rejection(payload_with("additionalInfo.moreHours.Delivery[4].workingHours", ranges))

    path = "additionalInfo.moreHours.Delivery[4].workingHours[0]"
    assert (error.code, error.field) == (400, path)


def test_touching_ranges_do_not_overlap() -> None:
    ranges = [{"startHour": 32400, "endHour": 43200}, {"startHour": 43200, "endHour": 61200}]

    assert accept(payload_with("additionalInfo.hoursOfOperations[0].workingHours", ranges))


@pytest.mark.parametrize("working_hours", [[], [CLOSED_DAY_HOURS], DELETE])
def test_closed_day_may_carry_no_ranges_or_empty_strings(working_hours: Any) -> None:
    payload = payload_with("additionalInfo.hoursOfOperations[6].workingHours", working_hours)

    assert accept(payload)


@pytest.mark.parametrize("value", [True, 12, 4.5, "15:00"])
def test_hotel_attribute_values_may_be_number_string_or_boolean(value: Any) -> None:
    path = "profileListing.hotelAttributes.policies.policies.checkinTime.value"

    assert accept(payload_with(path, value))


# ----------------------------------------------------------------------- shape errors
SHAPE_CASES: list[tuple[str, Any, str]] = [
    # (path to change, bad value, field reported)
    ("unknownObject", {}, "unknownObject"),
    ("businessInfo", DELETE, "businessInfo"),
    ("businessInfo", "Harbor Pizza", "businessInfo"),
    ("businessInfo.name", DELETE, "businessInfo.name"),
    ("businessInfo.name", "   ", "businessInfo.name"),
    ("businessInfo.nickname", "HPK", "businessInfo.nickname"),
    ("businessInfo.phone", "555-010-0199", "businessInfo.phone"),
    ("businessInfo.phone", "(555)010-0199", "businessInfo.phone"),
    ("businessInfo.websiteUrl", "harborpizza.example.com", "businessInfo.websiteUrl"),
    ("businessInfo.websiteUrl", "ftp://harborpizza.example.com", "businessInfo.websiteUrl"),
    ("businessInfo.websiteUrl", "https://harbor pizza.example.com", "businessInfo.websiteUrl"),
    ("businessInfo.websiteUrl", "https://", "businessInfo.websiteUrl"),
    ("businessInfo.emailId", "owner.example.com", "businessInfo.emailId"),
    ("businessInfo.emailId", "owner@localhost", "businessInfo.emailId"),
    ("businessInfo.isAddressHidden", "false", "businessInfo.isAddressHidden"),
    ("businessInfo.isServiceAreaProvider", 1, "businessInfo.isServiceAreaProvider"),
    ("businessInfo.mainBusinessDescription", None, "businessInfo.mainBusinessDescription"),
    ("businessInfo.serviceAreas", {"description": "x"}, "businessInfo.serviceAreas"),
    ("businessInfo.serviceAreas[1]", {}, "businessInfo.serviceAreas[1].description"),
    ("businessInfo.location.city", 17, "businessInfo.location.city"),
    ("businessInfo.location.zip", 4101.5, "businessInfo.location.zip"),
    ("businessInfo.location.zip", True, "businessInfo.location.zip"),
    ("businessInfo.location.zip", -1, "businessInfo.location.zip"),
    ("businessInfo.location.countryCode", "USA", "businessInfo.location.countryCode"),
    ("businessInfo.location.countryCode", "U1", "businessInfo.location.countryCode"),
    ("additionalInfo", [], "additionalInfo"),
    ("additionalInfo.timezone", "Mars/Olympus_Mons", "additionalInfo.timezone"),
    ("additionalInfo.timezone", "EST5", "additionalInfo.timezone"),
    ("additionalInfo.languages", "English", "additionalInfo.languages"),
    ("additionalInfo.languages[0]", "", "additionalInfo.languages[0]"),
    ("additionalInfo.paymentTypes[1]", 3, "additionalInfo.paymentTypes[1]"),
    ("additionalInfo.wholeWeekOperating", 2, "additionalInfo.wholeWeekOperating"),
    ("additionalInfo.wholeWeekOperating", False, "additionalInfo.wholeWeekOperating"),
    ("additionalInfo.businessStatus", "Closed", "additionalInfo.businessStatus"),
    ("additionalInfo.businessStatus", "", "additionalInfo.businessStatus"),
    ("additionalInfo.reopenDate", "2025-07-01", "additionalInfo.reopenDate"),
    ("additionalInfo.reopenDate", "7/1/2025", "additionalInfo.reopenDate"),
    ("additionalInfo.openingSoonDate", "02/30/2026", "additionalInfo.openingSoonDate"),
    ("additionalInfo.openedOnDate", "13/01/2020", "additionalInfo.openedOnDate"),
    ("additionalInfo.iosAppURL", "itms-apps://harbor", "additionalInfo.iosAppURL"),
    # Day entries.
    ("additionalInfo.hoursOfOperations", {}, "additionalInfo.hoursOfOperations"),
    (
        "additionalInfo.hoursOfOperations[0].day",
        7,
        "additionalInfo.hoursOfOperations[0].day",
    ),
    (
        "additionalInfo.hoursOfOperations[0].day",
        DELETE,
        "additionalInfo.hoursOfOperations[0].day",
    ),
    (
        "additionalInfo.hoursOfOperations[1].day",
        0,
        "additionalInfo.hoursOfOperations[1].day",
    ),
    (
        "additionalInfo.hoursOfOperations[0].isOpen",
        True,
        "additionalInfo.hoursOfOperations[0].isOpen",
    ),
    (
        "additionalInfo.hoursOfOperations[0].workingHours",
        [],
        "additionalInfo.hoursOfOperations[0].workingHours",
    ),
    (
        "additionalInfo.hoursOfOperations[0].workingHours[0].startHour",
        "09:00",
        "additionalInfo.hoursOfOperations[0].workingHours[0].startHour",
    ),
    (
        "additionalInfo.hoursOfOperations[0].workingHours[0].startHour",
        -1,
        "additionalInfo.hoursOfOperations[0].workingHours[0].startHour",
    ),
    (
        "additionalInfo.hoursOfOperations[0].workingHours[0].endHour",
        86401,
        "additionalInfo.hoursOfOperations[0].workingHours[0].endHour",
    ),
    (
        "additionalInfo.hoursOfOperations[0].workingHours[0].endHour",
        30000,
        "additionalInfo.hoursOfOperations[0].workingHours[0]",
    ),
    (
        "additionalInfo.hoursOfOperations[0].workingHours[0].endHour",
        DELETE,
        "additionalInfo.hoursOfOperations[0].workingHours[0].endHour",
    ),
    (
        "additionalInfo.hoursOfOperations[6].workingHours",
        [NINE_TO_FIVE],
        "additionalInfo.hoursOfOperations[6].workingHours[0].startHour",
    ),
    (
        "additionalInfo.moreHours.Delivery[0].isOpen",
        "1",
        "additionalInfo.moreHours.Delivery[0].isOpen",
    ),
    (
        "additionalInfo.mapsMoreHours.Takeout",
        {"day": 0},
        "additionalInfo.mapsMoreHours.Takeout",
    ),
    ("additionalInfo.moreHours", [], "additionalInfo.moreHours"),
    # Special hours.
    (
        "additionalInfo.specialHours[0].specialDate",
        "2025-12-25",
        "additionalInfo.specialHours[0].specialDate",
    ),
    (
        "additionalInfo.specialHours[0].specialDate",
        "",
        "additionalInfo.specialHours[0].specialDate",
    ),
    (
        "additionalInfo.specialHours[1].endHour",
        30000,
        "additionalInfo.specialHours[1]",
    ),
    (
        "additionalInfo.specialHours[2].startHour",
        45000,
        "additionalInfo.specialHours[2]",
    ),
    (
        "additionalInfo.specialHours[0].startHour",
        32400,
        "additionalInfo.specialHours[0].startHour",
    ),
    # Other objects.
    ("media.logoUrl", "logo.png", "media.logoUrl"),
    ("media.thumbnailUrl", "https://cdn.example.com/t.png", "media.thumbnailUrl"),
    ("optOut.socialCoverOptOut", "yes", "optOut.socialCoverOptOut"),
    ("covidInfo.covid19SupportLink", "see website", "covidInfo.covid19SupportLink"),
    ("engineListing.engineCategories", "Pizza", "engineListing.engineCategories"),
    ("internalListing.subCategories[0]", None, "internalListing.subCategories[0]"),
    ("socialListing.socialPhoneNumber", 5550100199, "socialListing.socialPhoneNumber"),
    ("thirdPartyListing.thirdPartyCategory", ["x"], "thirdPartyListing.thirdPartyCategory"),
    ("profileListing.additionalCategories[0]", 5, "profileListing.additionalCategories[0]"),
    ("profileListing.foodDelivery", 42, "profileListing.foodDelivery"),
    (
        "profileListing.attributes.Service options[0].value",
        "yes",
        "profileListing.attributes.Service options[0].value",
    ),
    (
        "profileListing.attributes.Service options[0].attributeId",
        DELETE,
        "profileListing.attributes.Service options[0].attributeId",
    ),
    (
        "profileListing.attributes.Service options",
        {"attributeId": "x"},
        "profileListing.attributes.Service options",
    ),
    ("profileListing.hotelAttributes.amenities", {}, "profileListing.hotelAttributes.amenities"),
    (
        "profileListing.hotelAttributes.business",
        {"wifi": _hotel("wifi", True)},
        "profileListing.hotelAttributes.business.business",
    ),
    (
        "profileListing.hotelAttributes.property.property.rooms.value",
        [12],
        "profileListing.hotelAttributes.property.property.rooms.value",
    ),
    ("mapsListing.primaryCategory", "Pizza", "mapsListing.primaryCategory"),
    ("mapsListing.primaryCategory", "Food..Pizza", "mapsListing.primaryCategory"),
    ("mapsListing.additionalCategories[0]", "Italian", "mapsListing.additionalCategories[0]"),
    ("mapsListing.mapsWebsiteUrl", "www.example.com", "mapsListing.mapsWebsiteUrl"),
    (
        "mapsListing.mapsLocationAttributes.Accessibility[0]",
        {"attributeId": ""},
        "mapsListing.mapsLocationAttributes.Accessibility[0].attributeId",
    ),
    (
        "mapsListing.mapsActionLinks[0].deepLinkUrl",
        DELETE,
        "mapsListing.mapsActionLinks[0].deepLinkUrl",
    ),
    (
        "mapsListing.mapsActionLinks[0].deepLinkUrl",
        "",
        "mapsListing.mapsActionLinks[0].deepLinkUrl",
    ),
    (
        "mapsListing.mapsActionLinks[0].appStoreUrl",
        "app store",
        "mapsListing.mapsActionLinks[0].appStoreUrl",
    ),
    ("mapsListing.phoneNumber", "(555) 010-0199", "mapsListing.phoneNumber"),
    ("mapsListing.phoneNumber", "+1 555", "mapsListing.phoneNumber"),
    ("socialProfileURLs.videoUrl", "youtube channel", "socialProfileURLs.videoUrl"),
    ("socialProfileURLs.myspaceUrl", "https://x.example.com", "socialProfileURLs.myspaceUrl"),
    ("healthcare.doctorCategories[0]", "Dentistry", "healthcare.doctorCategories[0]"),
    (
        "healthcare.doctorCategories[0]",
        "Dentistry>Pediatric Dentistry",
        "healthcare.doctorCategories[0]",
    ),
    ("healthcare.doctorCategories[0]", "", "healthcare.doctorCategories[0]"),
    ("healthcare.isProvider", "false", "healthcare.isProvider"),
    ("healthcare.npi", 1234567890, "healthcare.npi"),
]


@pytest.mark.parametrize(("path", "bad_value", "field"), SHAPE_CASES)
def test_shape_rule_rejects_with_code_400(path: str, bad_value: Any, field: str) -> None:
    error = rejection(payload_with(path, bad_value))

    assert (error.code, error.field) == (400, field)
    assert error.message.startswith(field + " ")


@pytest.mark.parametrize("body", [[], "businessInfo", None, 17])
def test_body_that_is_not_an_object_is_rejected(body: Any) -> None:
    error = rejection(body)

    assert (error.code, error.field) == (400, None)
    assert "JSON object" in error.message


def test_overlapping_ranges_of_a_day_are_rejected() -> None:
    ranges = [
        {"startHour": 61200, "endHour": 79200},
        {"startHour": 32400, "endHour": 61200},
        {"startHour": 57600, "endHour": 64800},  # overlaps both
    ]
    error = rejection(payload_with("additionalInfo.hoursOfOperations[2].workingHours", ranges))

    assert error.code == 400
    assert error.field is not None
    assert error.field.startswith("additionalInfo.hoursOfOperations[2].workingHours[")
    assert "overlaps" in error.message


def test_shape_error_comes_before_every_table_rule() -> None:
    payload = payload_with("profileListing.foodDelivery", "not a link")
    set_field(payload, "businessInfo.phone", "5550100199")

    assert rejection(payload).code == 400


# ---------------------------------------------------------------------- error table
Violation = Callable[[dict[str, Any], "dict[str, Any] | None"], "dict[str, Any] | None"]


def _fixed(previous: dict[str, Any] | None) -> dict[str, Any]:
    """A previously accepted payload: the listing is fixed."""
    return previous if previous is not None else accept(valid_payload())


def _set(path: str, value: Any) -> Violation:
    def violate(payload: dict[str, Any], previous: dict[str, Any] | None) -> dict | None:
        set_field(payload, path, value)
        return previous

    return violate


def _extend_profile_categories(payload: dict[str, Any], previous: dict | None) -> dict | None:
    payload["profileListing"]["additionalCategories"] += [f"Category {n}" for n in range(10)]
    return previous


def _duplicate_profile_category(payload: dict[str, Any], previous: dict | None) -> dict | None:
    categories = payload["profileListing"]["additionalCategories"]
    categories.append(categories[0].upper())  # duplicates ignore case
    return previous


def _add_profile_primary(payload: dict[str, Any], previous: dict | None) -> dict | None:
    listing = payload["profileListing"]
    listing["additionalCategories"].append(listing["primaryCategoryProfile"])
    return previous


def _add_maps_primary(payload: dict[str, Any], previous: dict | None) -> dict | None:
    listing = payload["mapsListing"]
    listing["additionalCategories"].append(listing["primaryCategory"])
    return previous


def _change_status_of_fixed(payload: dict[str, Any], previous: dict | None) -> dict | None:
    previous = _fixed(previous)
    previous["additionalInfo"]["businessStatus"] = "Temporarily Closed"
    return previous


def _change_opening_soon_date_of_fixed(
    payload: dict[str, Any], previous: dict | None
) -> dict | None:
    previous = _fixed(previous)
    previous["additionalInfo"]["openingSoonDate"] = "08/01/2025"
    payload["additionalInfo"]["openingSoonDate"] = "09/01/2025"
    return previous


def _opening_soon_without_date(payload: dict[str, Any], previous: dict | None) -> dict | None:
    payload["additionalInfo"]["businessStatus"] = "Opening Soon"
    payload["additionalInfo"].pop("openingSoonDate", None)
    return previous


# One way to break each rule, in the order of the table; each composes with the others.
VIOLATIONS: dict[int, Violation] = {
    2296: _set("profileListing.foodDelivery", "delivery.example.com/harbor"),
    2297: _set("profileListing.foodTakeout", "http://"),
    2290: _set("profileListing.primaryCategoryProfile", "Dentist"),
    2503: _add_maps_primary,
    2276: _extend_profile_categories,
    2277: _duplicate_profile_category,
    2278: _add_profile_primary,
    2162: _set("additionalInfo.reopenDate", YESTERDAY),
    2511: _change_status_of_fixed,
    2512: _change_opening_soon_date_of_fixed,
    2513: _set("additionalInfo.openedOnDate", TOMORROW),
    2514: _opening_soon_without_date,
}
TABLE_ORDER = list(VIOLATIONS)
EXPECTED_FIELDS = {
    2296: "profileListing.foodDelivery",
    2297: "profileListing.foodTakeout",
    2290: "profileListing.foodDelivery",
    2503: "mapsListing.additionalCategories",
    2276: "profileListing.additionalCategories",
    2277: "profileListing.additionalCategories",
    2278: "profileListing.additionalCategories",
    2162: "additionalInfo.reopenDate",
    2511: "additionalInfo.businessStatus",
    2512: "additionalInfo.openingSoonDate",
    2513: "additionalInfo.openedOnDate",
    2514: "additionalInfo.openingSoonDate",
}


def _violating(*codes: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    payload, previous = valid_payload(), None
    for code in codes:
        previous = VIOLATIONS[code](payload, previous)
    return payload, previous


def test_the_table_is_in_the_interface_order() -> None:
    assert TABLE_ORDER == [2296, 2297, 2290, 2503, 2276, 2277, 2278, 2162, 2511, 2512, 2513, 2514]


# The provider's messages, copied by hand from its published models (spec/provider-wire.md,
# section 3), final full stops as it writes them.
PROVIDER_MESSAGES = {
    2296: "Invalid Food Delivery link",
    2297: "Invalid Food Takeout link",
    2290: "Food Takeout/Food Delivery not supported for gmb primary category",
    2503: "Primary category can not be included in additional category.",
    2276: "Please add upto 9 GBP additional categories only.",
    2277: "Duplicate GBP categories are not allowed.",
    2278: "Primary GBP category is not allowed in additional GBP categories.",
    2162: "Reopen date should not be less than current date.",
    2511: "Cannot update business status when listing is already fixed.",
    2512: "Cannot update opening soon date when listing is already fixed.",
    2513: "Opened On date can not be in future.",
    2514: "Opening Soon date is mandatory when business is marked as Opening soon.",
    2516: "Opening Soon Date can not be more than 1 year from now.",
    2517: "Opening Soon date should not be less than current date.",
    2518: "Business Status is mandatory to pass with reopen, opened on and opening soon date.",
    2519: "Third party categories change for opening soon business is not allowed.",
    2285: "Invalid text message number",
    2286: "Invalid whatsapp business link",
    6000: "The 'sub_locality' field is mandatory for addresses in New Zealand.",
    6001: "The 'sub_locality' field cannot exceed 80 characters.",
}


@pytest.mark.parametrize("code", TABLE_ORDER)
def test_each_table_rule_has_its_code_field_and_the_providers_message(code: int) -> None:
    error = rejection(*_violating(code))

    assert (error.code, error.field) == (code, EXPECTED_FIELDS[code])
    assert error.message == PROVIDER_MESSAGES[code]
    assert error.http_status == 400


@pytest.mark.parametrize(
    ("earlier", "later"), list(zip(TABLE_ORDER, TABLE_ORDER[1:], strict=False))
)
@pytest.mark.parametrize("later_applied_first", [False, True])
def test_earlier_rule_of_the_table_wins(
    earlier: int, later: int, later_applied_first: bool
) -> None:
    codes = (later, earlier) if later_applied_first else (earlier, later)

    assert rejection(*_violating(*codes)).code == earlier


def test_all_violations_at_once_report_the_first_rule() -> None:
    assert rejection(*_violating(*reversed(TABLE_ORDER))).code == 2296


# ------------------------------------------------ the codes interface.md only lists
def _no_status(payload: dict[str, Any], previous: dict | None) -> dict | None:
    del payload["additionalInfo"]["businessStatus"]  # its reopen and opened-on dates stay
    return previous


def _third_party_change_while_opening_soon(
    payload: dict[str, Any], previous: dict | None
) -> dict | None:
    previous = accept(_opening_soon_listing())
    payload["additionalInfo"].update(businessStatus="Opening Soon", openingSoonDate="09/01/2025")
    payload["thirdPartyListing"]["thirdPartyCategory"] = "Pizzerias"
    return previous


def _nz_address(sub_locality: Any) -> Violation:
    def violate(payload: dict[str, Any], previous: dict | None) -> dict | None:
        location = payload["businessInfo"]["location"]
        location.update(countryCode="NZ", city="Auckland", state="AUK", zip="1010")
        set_field(payload, "businessInfo.location.subLocality", sub_locality)
        return previous

    return violate


LISTED_VIOLATIONS: dict[int, Violation] = {
    2516: _set("additionalInfo.openingSoonDate", "06/16/2026"),  # a year and a day ahead
    2517: _set("additionalInfo.openingSoonDate", YESTERDAY),
    2518: _no_status,
    2519: _third_party_change_while_opening_soon,
    2285: _set("profileListing.textMessageNumber", "973716-0007"),  # the provider's example
    2286: _set("profileListing.messagingBusinessLink", "wa.me/9737160007"),
    6000: _nz_address(DELETE),
    6001: _nz_address("Auckland Central " * 5),  # 85 characters
}
LISTED_FIELDS = {
    2516: "additionalInfo.openingSoonDate",
    2517: "additionalInfo.openingSoonDate",
    2518: "additionalInfo.businessStatus",
    2519: "thirdPartyListing.thirdPartyCategory",
    2285: "profileListing.textMessageNumber",
    2286: "profileListing.messagingBusinessLink",
    6000: "businessInfo.location.subLocality",
    6001: "businessInfo.location.subLocality",
}


def _violating_listed(*codes: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    every = {**VIOLATIONS, **LISTED_VIOLATIONS}
    payload, previous = valid_payload(), None
    for code in codes:
        previous = every[code](payload, previous)
    return payload, previous


@pytest.mark.parametrize("code", list(LISTED_VIOLATIONS))
def test_each_listed_code_has_its_field_and_the_providers_message(code: int) -> None:
    error = rejection(*_violating_listed(code))

    assert (error.code, error.field) == (code, LISTED_FIELDS[code])
    assert error.message == PROVIDER_MESSAGES[code]


# Pairs that can be broken together (2514 and 2516, or 6000 and 6001, exclude each other):
# the interface's table first, then the listed codes in the order of the provider's models.
LISTED_ORDER = [(2513, 2516), (2514, 2285), (2516, 2518), (2517, 2518), (2518, 2285),
                (2519, 2285), (2285, 2286), (2286, 6000), (2286, 6001)]


@pytest.mark.parametrize(("earlier", "later"), LISTED_ORDER)
@pytest.mark.parametrize("later_applied_first", [False, True])
def test_listed_codes_come_after_the_table_in_the_models_order(
    earlier: int, later: int, later_applied_first: bool
) -> None:
    codes = (later, earlier) if later_applied_first else (earlier, later)

    assert rejection(*_violating_listed(*codes)).code == earlier


@pytest.mark.parametrize("number", ["(555) 010-0199", "+64 9 123 4567", "+15550100199", ""])
def test_a_text_message_number_in_a_phone_shape_of_the_provider_is_accepted(number: str) -> None:
    assert accept(payload_with("profileListing.textMessageNumber", number))


@pytest.mark.parametrize("number", ["973716-0007", "5550100199", "555-010-0199", "text us"])
def test_any_other_text_message_number_is_2285(number: str) -> None:
    assert rejection(payload_with("profileListing.textMessageNumber", number)).code == 2285


@pytest.mark.parametrize("link", ["https://wa.me/9737160007", ""])
def test_a_messaging_link_may_be_a_link_or_empty(link: str) -> None:
    assert accept(payload_with("profileListing.messagingBusinessLink", link))


@pytest.mark.parametrize("link", ["wa.me/9737160007", "chat me", "ftp://x.nz"])
def test_a_messaging_link_that_is_no_link_is_2286(link: str) -> None:
    error = rejection(payload_with("profileListing.messagingBusinessLink", link))

    assert (error.code, error.message) == (2286, "Invalid whatsapp business link")


@pytest.mark.parametrize("sub_locality", [DELETE, "", "   "])
def test_a_new_zealand_address_needs_its_sub_locality(sub_locality: Any) -> None:
    payload = valid_payload()
    _nz_address(sub_locality)(payload, None)

    assert rejection(payload).code == 6000


def test_the_country_code_of_new_zealand_is_read_in_either_case() -> None:
    payload = valid_payload()
    _nz_address("")(payload, None)
    payload["businessInfo"]["location"]["countryCode"] = "nz"

    assert rejection(payload).code == 6000


def test_a_sub_locality_of_80_characters_is_accepted_and_81_is_6001() -> None:
    payload = valid_payload()
    _nz_address("P" * 80)(payload, None)
    assert accept(payload)

    _nz_address("P" * 81)(payload, None)
    assert rejection(payload).code == 6001


def test_an_address_sent_without_country_keeps_the_stored_country() -> None:
    stored = valid_payload()
    _nz_address("Ponsonby")(stored, None)
    previous = accept(stored)
    payload = {"businessInfo": {"name": "Harbor Pizza Kitchen",
                                "location": {"address1": "1 Queen Street", "city": "Auckland"}}}

    assert rejection(payload, previous=previous).code == 6000


@pytest.mark.parametrize("sub_locality", [DELETE, "x" * 200])
def test_the_sub_locality_of_other_countries_is_not_checked(sub_locality: Any) -> None:
    """The provider ignores the field outside New Zealand."""
    assert accept(payload_with("businessInfo.location.subLocality", sub_locality))


def test_a_year_ahead_is_the_furthest_opening_soon_date() -> None:
    payload = payload_with("additionalInfo.businessStatus", "Opening Soon")
    set_field(payload, "additionalInfo.openingSoonDate", "06/15/2026")

    assert accept(payload)


def test_an_opening_soon_date_of_today_is_accepted() -> None:
    payload = payload_with("additionalInfo.businessStatus", "Opening Soon")
    set_field(payload, "additionalInfo.openingSoonDate", "06/15/2025")

    assert accept(payload)


def test_a_date_sent_to_a_listing_whose_status_is_stored_is_accepted() -> None:
    previous = accept(valid_payload())
    payload = {"businessInfo": {"name": "Harbor Pizza Kitchen"},
               "additionalInfo": {"reopenDate": "07/02/2025"}}

    assert accept(payload, previous=previous)


def test_a_listing_without_status_or_dates_is_accepted() -> None:
    payload = valid_payload()
    for name in ("businessStatus", "reopenDate", "openedOnDate"):
        del payload["additionalInfo"][name]

    assert accept(payload)


def test_third_party_categories_of_an_opening_soon_business_may_be_set_before_it_is_fixed() -> None:
    payload = _opening_soon_listing()
    payload["thirdPartyListing"]["thirdPartyCategory"] = "Pizzerias"

    assert accept(payload)


def test_unchanged_third_party_categories_of_an_opening_soon_business_are_accepted() -> None:
    previous = accept(_opening_soon_listing())

    assert accept(_opening_soon_listing(), previous=previous)


def test_the_sub_categories_count_as_third_party_categories() -> None:
    previous = accept(_opening_soon_listing())
    payload = _opening_soon_listing()
    payload["thirdPartyListing"]["thirdPartySubCategories"] = ["Pizza"]

    error = rejection(payload, previous=previous)
    assert (error.code, error.field) == (2519, "thirdPartyListing.thirdPartySubCategories")


# ----------------------------------------------------------------------- food links
@pytest.mark.parametrize(
    "category", ["Pizza restaurant", "Coffee CAFE", "Wine bar", "Bakery", "Deli", "Meal takeaway"]
)
def test_food_links_are_accepted_for_food_businesses(category: str) -> None:
    assert accept(payload_with("profileListing.primaryCategoryProfile", category))


@pytest.mark.parametrize("category", ["Dentist", "Plumber", ""])
def test_food_links_are_rejected_for_other_businesses(category: str) -> None:
    payload = payload_with("profileListing.primaryCategoryProfile", category)

    assert rejection(payload).code == 2290


def test_food_link_without_any_primary_category_is_rejected() -> None:
    payload = payload_with("profileListing.primaryCategoryProfile", DELETE)

    assert rejection(payload).code == 2290


def test_takeout_link_alone_is_reported_for_a_non_food_business() -> None:
    payload = payload_with("profileListing.primaryCategoryProfile", "Dentist")
    set_field(payload, "profileListing.foodDelivery", "")

    assert rejection(payload).field == "profileListing.foodTakeout"


def test_non_food_business_without_food_links_is_accepted() -> None:
    payload = payload_with("profileListing.primaryCategoryProfile", "Dentist")
    set_field(payload, "profileListing.foodDelivery", DELETE)
    set_field(payload, "profileListing.foodTakeout", "")

    assert accept(payload)


def test_nine_distinct_additional_categories_are_allowed() -> None:
    categories = [f"Category {n}" for n in range(9)]

    assert accept(payload_with("profileListing.additionalCategories", categories))


# ----------------------------------------------------------------------- dates vs today
@pytest.mark.parametrize(
    ("path", "value", "code"),
    [
        ("additionalInfo.reopenDate", YESTERDAY, 2162),
        ("additionalInfo.reopenDate", "12/31/2024", 2162),
        ("additionalInfo.openedOnDate", TOMORROW, 2513),
        ("additionalInfo.openedOnDate", "01/01/2026", 2513),
    ],
)
def test_dates_on_the_wrong_side_of_today_are_rejected(path: str, value: str, code: int) -> None:
    assert rejection(payload_with(path, value)).code == code


@pytest.mark.parametrize("path", ["additionalInfo.reopenDate", "additionalInfo.openedOnDate"])
def test_today_is_allowed_for_reopen_and_opened_on_dates(path: str) -> None:
    assert accept(payload_with(path, "06/15/2025"))


def test_stored_reopen_date_that_has_passed_does_not_block_an_update() -> None:
    previous = accept(valid_payload())
    previous["additionalInfo"]["reopenDate"] = YESTERDAY
    payload = payload_with("additionalInfo.reopenDate", DELETE)

    assert accept(payload, previous=previous)


def test_opening_soon_with_a_date_is_accepted() -> None:
    payload = payload_with("additionalInfo.businessStatus", "Opening Soon")
    set_field(payload, "additionalInfo.openingSoonDate", "09/01/2025")

    assert accept(payload)


def test_opening_soon_with_an_empty_date_is_rejected() -> None:
    payload = payload_with("additionalInfo.businessStatus", "Opening Soon")
    set_field(payload, "additionalInfo.openingSoonDate", "")

    assert rejection(payload).code == 2514


# ---------------------------------------------------------------------- fixed listing
def _opening_soon_listing() -> dict[str, Any]:
    payload = payload_with("additionalInfo.businessStatus", "Opening Soon")
    set_field(payload, "additionalInfo.openingSoonDate", "09/01/2025")
    return payload


def test_listing_that_is_not_fixed_may_change_status_and_date() -> None:
    payload = payload_with("additionalInfo.businessStatus", "Permanently Closed")
    set_field(payload, "additionalInfo.openingSoonDate", "10/01/2025")

    assert accept(payload, previous=None)


def test_fixed_listing_accepts_the_same_status_and_date_again() -> None:
    previous = accept(_opening_soon_listing())

    assert accept(_opening_soon_listing(), previous=previous)


def test_fixed_listing_accepts_other_field_updates() -> None:
    previous = accept(valid_payload())
    payload = payload_with("businessInfo.name", "Harbor Pizza & Pasta")

    assert accept(payload, previous=previous)["businessInfo"]["name"] == "Harbor Pizza & Pasta"


@pytest.mark.parametrize(
    "path", ["additionalInfo.businessStatus", "additionalInfo.openingSoonDate", "additionalInfo"]
)
def test_fields_absent_on_a_fixed_listing_are_unchanged(path: str) -> None:
    previous = accept(_opening_soon_listing())
    payload = _opening_soon_listing()
    set_field(payload, path, DELETE)

    # Accepted as it is: nothing is filled in from the stored listing.
    assert accept(payload, previous=previous) == payload


@pytest.mark.parametrize(
    ("path", "value", "code"),
    [
        ("additionalInfo.businessStatus", "Open", 2511),
        ("additionalInfo.openingSoonDate", "09/02/2025", 2512),
        ("additionalInfo.openingSoonDate", "", 2512),
    ],
)
def test_fixed_listing_rejects_changes(path: str, value: str, code: int) -> None:
    previous = accept(_opening_soon_listing())
    payload = _opening_soon_listing()
    set_field(payload, path, value)

    assert rejection(payload, previous=previous).code == code


def test_setting_a_status_the_fixed_listing_never_had_is_a_change() -> None:
    # Without its dates too: a date with no status at all is 2518.
    without_status = valid_payload()
    for name in ("businessStatus", "reopenDate", "openedOnDate"):
        del without_status["additionalInfo"][name]
    previous = accept(without_status)

    assert rejection(valid_payload(), previous=previous).code == 2511


def test_setting_an_opening_soon_date_on_a_fixed_listing_is_a_change() -> None:
    previous = accept(valid_payload())
    payload = payload_with("additionalInfo.openingSoonDate", "09/01/2025")

    assert rejection(payload, previous=previous).code == 2512


def test_fixed_listing_checks_food_links_against_the_new_primary_category() -> None:
    previous = accept(valid_payload())
    payload = {
        "businessInfo": {"name": "Harbor Dental"},
        "profileListing": {"primaryCategoryProfile": "Dentist"},
    }

    error = rejection(payload, previous=previous)

    assert (error.code, error.field) == (2290, "profileListing.foodDelivery")


def test_fixed_listing_checks_the_new_primary_against_stored_additional_categories() -> None:
    previous = accept(valid_payload())
    payload = {
        "businessInfo": {"name": "Harbor Pizza Kitchen"},
        "profileListing": {"primaryCategoryProfile": "Italian restaurant"},
    }

    assert rejection(payload, previous=previous).code == 2278


def test_validation_does_not_modify_previous() -> None:
    previous = accept(_opening_soon_listing())
    snapshot = copy.deepcopy(previous)

    accept(_opening_soon_listing(), previous=previous)

    assert previous == snapshot

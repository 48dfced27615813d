"""Validation of the provider's create-listing body, as the embedded sandbox enforces it.

Sources: spec/interface.md ("Listing (create payload)", "States and transitions", the
create-listing error table), spec/parameters.md ("Listing lifecycle") and the provider's own
codes and messages (spec/provider-wire.md, section 3). Every failure is a ``ListingError`` whose
HTTP status is always 400; ``validate_listing`` raises the first one. A rule of the provider's
table answers the provider's message word for word; a shape error (code 400, which the provider
does not document) names the offending field.

Order of checks
1. Shape and types (code 400): the body is an object, every key is one the spec names (at
   every level), every value has the spec's type and format. Objects are checked in the order
   of their keys in the payload.
2. The error table in its order: 2296, 2297, 2290, 2503, 2276, 2277, 2278, 2162, 2511, 2512,
   2513, 2514, then the codes interface.md only lists, in the order of the provider's models:
   2516, 2517, 2518, 2519, 2285 (model 2521), 2286 (model 2522), 6000, 6001. The food links,
   the messaging link, the text-message number and the sub-locality are only required to be
   strings in step 1, so that a wrong value is reported with its code, not as a shape error.
   2515 and 2520 are never answered: the provider states no condition for them.

Choices where the spec is silent
- Required: ``businessInfo`` with a non-empty ``name``. Everything else is optional.
  Inside array items: ``serviceAreas[].description``; ``day`` and ``isOpen`` of day entries
  (``workingHours`` too when the day is open); ``startHour``/``endHour`` of a range;
  ``specialDate`` and ``isOpen`` of special hours; ``attributeId`` (and ``value`` for the
  profile and hotel attributes) of attribute items; ``id`` and ``deepLinkUrl`` of maps action
  links.
- Unknown keys are rejected at every level, not only at the top, so that a client typo does
  not pass silently. ``additionalInfo`` also takes ``openingSoonDate`` and ``openedOnDate``
  (parameters.md). ``covidInfo`` holds postDescription, covid19SupportLink, virtualCareLink.
- URLs are absolute http(s) URLs with a real host name (a domain with a top-level label,
  ``localhost`` or an IP address). Fields named like links are URLs even where the spec
  writes "string": profileWebsiteUrl, mapsWebsiteUrl, covid19SupportLink, virtualCareLink.
- Empty strings: any optional string field may be ``""``. For fields with a format (URLs,
  email, phone, dates, timezone, countryCode, zip, maps category paths, maps phone number)
  ``""`` means "not set" and skips the format check; an empty food link is no link at all
  (no 2296/2297/2290). ``mainBusinessDescription`` and ``internalListing.description`` keep
  ``""``, which clears the stored value. Not allowed empty: ``businessInfo.name``,
  ``businessStatus`` (one of its four values), items of string arrays, ids of attributes and
  action links, labels of hour groups and attribute groups.
- ``socialProfileURLs`` fields: engineProfileUrl, socialProfileUrl, shortMessageUrl, videoUrl,
  professionalUrl, photoUrl, pinUrl, bureauUrl, lendingUrl.
- Hours are integer seconds since midnight, 0..86400, start <= end (no overnight range: a
  night is sent as two days). A range whose start equals its end is accepted, as in the
  provider's own example body, and is not compared with the day's other ranges: the provider
  does not say what it means. An open day has at least one range; other ranges of a day must
  not overlap (touching is fine). A closed day has no ranges or ranges whose hours are both
  ``""``. A day appears at most once in one list. Special hours: open entries on the same
  date must not overlap either.
- ``wholeWeekOperating`` and every ``isOpen`` are the integers 0 or 1 (not booleans).
- countryCode: two ASCII letters, either case. zip: a non-negative integer or a string.
- Maps categories are dotted paths of at least two non-empty segments (``Food.Restaurant``).
  The maps phone number is international: ``+`` then 7 to 15 digits, with spaces, dots,
  dashes or parentheses allowed between them. Doctor categories are exactly
  ``Specialty > Subspecialty``.
- Category comparisons (2277, 2278, 2503) ignore case. 2290's food-business test is the
  case-insensitive substring test parameters.md states (so "Barber Shop" counts, via "bar");
  with no primary profile category at all, a food link is rejected with 2290.
- 2285: a text-message number has one of the two shapes the provider uses for phone numbers
  elsewhere: ``(xxx) xxx-xxxx`` (businessInfo.phone) or international (``+`` and 7 to 15
  digits, as the maps phone number). 2286: the messaging link is an http(s) URL.
- 6000/6001 apply to a New Zealand address the payload carries (its countryCode, or the stored
  one when it sends none): subLocality missing or blank (6000), or longer than 80 characters
  (6001). For other countries the provider ignores the field, so it is not checked.
- 2516/2517 look at an opening-soon date the payload carries: more than a year after today
  (2516) or before today (2517). 2518: a reopen, opened-on or opening-soon date is sent while
  the listing has no business status (neither in the payload nor stored). 2519: a fixed
  listing whose status is Opening Soon is sent third-party categories that differ from the
  stored ones.
- A fixed listing (``previous`` is not None) treats an absent field as unchanged. Hence:
  2511/2512 fire only when the payload carries the field and its value differs from
  ``previous``'s (a field absent from ``previous`` compares as unset, so setting it is a
  change; ``""`` is a value and differs from a date). The cross-field rules (2290, 2503,
  2276-2278, 2514) look at the effective listing: each field from the payload, or from
  ``previous`` when the payload leaves it out. The date rules against ``today`` (2162,
  2513) look only at dates the payload carries, so a stored reopen date that has since
  passed does not block later updates.
- Normalization: a deep copy with the same keys and every string trimmed; the checks run on
  that copy and it is what is returned.
- Field paths are dotted, with list indexes in brackets:
  ``additionalInfo.hoursOfOperations[0].workingHours[1].endHour``.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import available_timezones

__all__ = [
    "BUSINESS_STATUSES",
    "SHAPE_ERROR_CODE",
    "SOCIAL_PROFILE_URL_FIELDS",
    "ListingError",
    "validate_listing",
]

SHAPE_ERROR_CODE = 400
HTTP_STATUS = 400
SECONDS_PER_DAY = 86400
MAX_PROFILE_ADDITIONAL_CATEGORIES = 9
BUSINESS_STATUSES = ("Open", "Temporarily Closed", "Permanently Closed", "Opening Soon")
OPENING_SOON = "Opening Soon"
FOOD_CATEGORY_WORDS = ("restaurant", "cafe", "bakery", "bar", "pizza", "food", "meal", "deli")


class ListingError(Exception):
    """A rejected create-listing body: provider ``code``, English ``message``, dotted ``field``."""

    http_status = HTTP_STATUS

    def __init__(self, code: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def __repr__(self) -> str:
        return f"ListingError(code={self.code}, field={self.field!r}, message={self.message!r})"


# --------------------------------------------------------------------------- shape checks
# A check takes a value and its dotted path and raises ListingError when the value is wrong.
Check = Callable[[Any, str], None]


def _shape_error(path: str, rule: str) -> ListingError:
    return ListingError(SHAPE_ERROR_CODE, f"{path} {rule}", path)


def _is_integer(value: Any) -> bool:
    # bool is a subclass of int, but JSON true/false are not numbers.
    return isinstance(value, int) and not isinstance(value, bool)


def _string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise _shape_error(path, "must be a string")


def _non_empty_string(value: Any, path: str) -> None:
    _string(value, path)
    if not value:
        raise _shape_error(path, "must not be empty")


def _boolean(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise _shape_error(path, "must be a boolean (true or false)")


def _flag(value: Any, path: str) -> None:
    if not (_is_integer(value) and value in (0, 1)):
        raise _shape_error(path, "must be the integer 0 or 1")


def _weekday(value: Any, path: str) -> None:
    if not (_is_integer(value) and 0 <= value <= 6):
        raise _shape_error(path, "must be an integer from 0 (Monday) to 6 (Sunday)")


def _hour_or_blank(value: Any, path: str) -> None:
    # Whether a number or "" is right depends on isOpen; the day-level check decides.
    if not (_is_integer(value) or isinstance(value, str)):
        raise _shape_error(path, "must be an integer number of seconds or an empty string")


def _scalar(value: Any, path: str) -> None:
    if not isinstance(value, str | int | float):  # bool is an int
        raise _shape_error(path, "must be a number, a string or a boolean")


def _zip(value: Any, path: str) -> None:
    if _is_integer(value):
        if value < 0:
            raise _shape_error(path, "must not be negative")
    elif not isinstance(value, str):
        raise _shape_error(path, "must be a number or a string")


def _business_status(value: Any, path: str) -> None:
    if value not in BUSINESS_STATUSES:
        raise _shape_error(path, "must be one of " + ", ".join(BUSINESS_STATUSES))


def _formatted(is_valid: Callable[[str], bool], rule: str) -> Check:
    """A string in some format; "" means "not set" and passes (see the module docstring)."""

    def check(value: Any, path: str) -> None:
        _string(value, path)
        if value and not is_valid(value):
            raise _shape_error(path, rule)

    return check


def _non_empty(check: Check) -> Check:
    def checked(value: Any, path: str) -> None:
        check(value, path)
        if value == "":
            raise _shape_error(path, "must not be empty")

    return checked


def _array_of(item_check: Check) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise _shape_error(path, "must be an array")
        for index, item in enumerate(value):
            item_check(item, f"{path}[{index}]")

    return check


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _object(fields: Mapping[str, Check], required: tuple[str, ...] = ()) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise _shape_error(path, "must be an object")
        for key in required:
            if key not in value:
                raise _shape_error(_join(path, key), "is required")
        for key, item in value.items():
            field_check = fields.get(key)
            if field_check is None:
                owner = f"field of {path}" if path else "top-level field"
                raise _shape_error(_join(path, key), f"is not a known {owner}")
            field_check(item, _join(path, key))

    return check


def _mapping_of(value_check: Check, key_name: str) -> Check:
    """An object whose keys are free names (hour labels, attribute groups)."""

    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise _shape_error(path, "must be an object")
        for key, item in value.items():
            if not isinstance(key, str) or not key.strip():
                raise _shape_error(path, f"must not have an empty {key_name}")
            value_check(item, _join(path, key))

    return check


# ------------------------------------------------------------------------- string formats
_PHONE_RE = re.compile(r"\(\d{3}\) \d{3}-\d{4}")
_DATE_RE = re.compile(r"\d{2}/\d{2}/\d{4}")
_COUNTRY_CODE_RE = re.compile(r"[A-Za-z]{2}")
_INTERNATIONAL_PHONE_RE = re.compile(r"\+\d[\d ().-]*")
_DOMAIN_RE = re.compile(
    r"(?:(?!-)[\w-]{1,63}(?<!-)\.)+(?:[^\W\d_]{2,63}|xn--[a-z0-9-]{1,59})\.?", re.IGNORECASE
)


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.fullmatch(text) is not None


def _is_host(host: str) -> bool:
    if host == "localhost" or _DOMAIN_RE.fullmatch(host):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_http_url(text: str) -> bool:
    if any(char.isspace() for char in text):
        return False
    try:
        parts = urlsplit(text)
        host = parts.hostname
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and _is_host(host)


def _is_email(text: str) -> bool:
    local, at, domain = text.rpartition("@")
    return bool(
        at
        and local
        and "@" not in local
        and not any(c.isspace() for c in local)
        and _DOMAIN_RE.fullmatch(domain)
    )


def _parse_date(text: str) -> datetime.date | None:
    if not _DATE_RE.fullmatch(text):
        return None
    try:
        return datetime.datetime.strptime(text, "%m/%d/%Y").date()
    except ValueError:  # e.g. 02/30/2025
        return None


@cache
def _iana_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _is_international_phone(text: str) -> bool:
    digits = sum(char.isdigit() for char in text)
    return bool(_INTERNATIONAL_PHONE_RE.fullmatch(text)) and 7 <= digits <= 15


def _is_dotted_category(text: str) -> bool:
    segments = text.split(".")
    return len(segments) >= 2 and all(s and s == s.strip() for s in segments)


def _is_doctor_category(text: str) -> bool:
    parts = text.split(" > ")
    return len(parts) == 2 and all(p and p == p.strip() and ">" not in p for p in parts)


_url = _formatted(_is_http_url, "must be an http(s) URL")
_phone = _formatted(_matches(_PHONE_RE), "must be shaped (xxx) xxx-xxxx")
_email = _formatted(_is_email, "must be an email address")
_date = _formatted(lambda text: _parse_date(text) is not None, "must be a date shaped MM/DD/YYYY")
_timezone = _formatted(
    lambda text: text in _iana_zones(), "must be an IANA time zone name such as America/Chicago"
)
_country_code = _formatted(_matches(_COUNTRY_CODE_RE), "must be a two-letter country code")
_international_phone = _formatted(
    _is_international_phone, "must be a phone number in international format, e.g. +1 555 010 0199"
)
_dotted_category = _formatted(
    _is_dotted_category, "must be a dotted category path such as Food.Restaurant"
)
_doctor_category = _non_empty(
    _formatted(_is_doctor_category, "must be shaped Specialty > Subspecialty")
)
_string_list = _array_of(_non_empty_string)


# ------------------------------------------------------------------------------- hours
def _check_range(start: Any, end: Any, path: str) -> tuple[int, int]:
    for name, value in (("startHour", start), ("endHour", end)):
        if not (_is_integer(value) and 0 <= value <= SECONDS_PER_DAY):
            raise _shape_error(
                _join(path, name),
                f"must be an integer number of seconds from 0 to {SECONDS_PER_DAY}",
            )
    if start > end:
        raise _shape_error(path, "must not have startHour later than endHour")
    return start, end


def _check_blank_range(start: Any, end: Any, path: str) -> None:
    for name, value in (("startHour", start), ("endHour", end)):
        if value not in ("", None):  # None: the key is absent
            raise _shape_error(_join(path, name), "must be an empty string on a closed day")


def _check_no_overlap(ranges: list[tuple[int, int, str]]) -> None:
    # A range that starts where it ends may stand for nothing or for the whole day; the
    # provider's example sends one and says neither, so it is not compared with the others.
    ranges = [(start, end, path) for start, end, path in ranges if start != end]
    for (_, earlier_end, _), (later_start, _, later_path) in pairwise(sorted(ranges)):
        if later_start < earlier_end:
            raise _shape_error(later_path, "overlaps another working-hour range of the same day")


_WORKING_HOURS_RANGE = _object(
    {"startHour": _hour_or_blank, "endHour": _hour_or_blank}, required=("startHour", "endHour")
)
_DAY_ENTRY = _object(
    {"day": _weekday, "isOpen": _flag, "workingHours": _array_of(_WORKING_HOURS_RANGE)},
    required=("day", "isOpen"),
)


def _check_day_hours(entry: dict[str, Any], path: str) -> None:
    ranges = entry.get("workingHours", [])
    hours_path = _join(path, "workingHours")
    if entry["isOpen"] == 0:
        for index, hours in enumerate(ranges):
            _check_blank_range(hours["startHour"], hours["endHour"], f"{hours_path}[{index}]")
        return
    if not ranges:
        raise _shape_error(hours_path, "must hold at least one range on an open day")
    checked = []
    for index, hours in enumerate(ranges):
        range_path = f"{hours_path}[{index}]"
        start, end = _check_range(hours["startHour"], hours["endHour"], range_path)
        checked.append((start, end, range_path))
    _check_no_overlap(checked)


def _day_entries(value: Any, path: str) -> None:
    _array_of(_DAY_ENTRY)(value, path)
    seen_days: set[int] = set()
    for index, entry in enumerate(value):
        entry_path = f"{path}[{index}]"
        if entry["day"] in seen_days:
            raise _shape_error(_join(entry_path, "day"), f"repeats day {entry['day']}")
        seen_days.add(entry["day"])
        _check_day_hours(entry, entry_path)


_SPECIAL_HOURS_ENTRY = _object(
    {
        "specialDate": _non_empty(_date),
        "startHour": _hour_or_blank,
        "endHour": _hour_or_blank,
        "isOpen": _flag,
    },
    required=("specialDate", "isOpen"),
)


def _special_hours(value: Any, path: str) -> None:
    _array_of(_SPECIAL_HOURS_ENTRY)(value, path)
    open_ranges_by_date: dict[str, list[tuple[int, int, str]]] = {}
    for index, entry in enumerate(value):
        entry_path = f"{path}[{index}]"
        start, end = entry.get("startHour"), entry.get("endHour")
        if entry["isOpen"] == 0:
            _check_blank_range(start, end, entry_path)
            continue
        start, end = _check_range(start, end, entry_path)
        open_ranges_by_date.setdefault(entry["specialDate"], []).append((start, end, entry_path))
    for ranges in open_ranges_by_date.values():
        _check_no_overlap(ranges)


_LABELLED_DAY_ENTRIES = _mapping_of(_day_entries, "label")


# ------------------------------------------------------------------------ payload shape
def _fields(names: str, check: Check) -> dict[str, Check]:
    return dict.fromkeys(names.split(), check)


_LOCATION = _object(
    {
        # subLocality is only a string here: 6000/6001 judge it in the rule table.
        **_fields("address1 address2 subLocality city state", _string),
        "zip": _zip,
        "countryCode": _country_code,
    }
)
_BUSINESS_INFO = _object(
    {
        "name": _non_empty_string,
        "phone": _phone,
        "websiteUrl": _url,
        "emailId": _email,
        **_fields("isAddressHidden isServiceAreaProvider", _boolean),
        "mainBusinessDescription": _string,
        "serviceAreas": _array_of(
            _object({"description": _non_empty_string}, required=("description",))
        ),
        "location": _LOCATION,
    },
    required=("name",),
)
_ADDITIONAL_INFO = _object(
    {
        **_fields("establishedYear keywords services products impressum", _string),
        **_fields("additionalPaymentTypes localPhoneNumber tollFreePhoneNumber", _string),
        "timezone": _timezone,
        "languages": _string_list,
        "paymentTypes": _string_list,
        "moreHours": _LABELLED_DAY_ENTRIES,
        "mapsMoreHours": _LABELLED_DAY_ENTRIES,
        "wholeWeekOperating": _flag,
        "hoursOfOperations": _day_entries,
        "specialHours": _special_hours,
        "businessStatus": _business_status,
        **_fields("reopenDate openingSoonDate openedOnDate", _date),
        **_fields("appointmentLink reservationLink menuLink orderAheadLink", _url),
        **_fields("iosAppURL androidAppURL", _url),
    }
)
_ATTRIBUTE_ITEM = _object(
    {"attributeId": _non_empty_string, "attributeName": _string, "value": _boolean},
    required=("attributeId", "value"),
)
_HOTEL_ATTRIBUTE = _object(
    {"attributeId": _non_empty_string, "attributeName": _string, "value": _scalar},
    required=("attributeId", "value"),
)
HOTEL_ATTRIBUTE_GROUPS = ("business", "policies", "property", "services")
_HOTEL_ATTRIBUTES = _object(
    {
        # Each group holds one object of the same name: {"business": {"business": {...}}}.
        group: _object({group: _mapping_of(_HOTEL_ATTRIBUTE, "attribute key")}, required=(group,))
        for group in HOTEL_ATTRIBUTE_GROUPS
    }
)
_PROFILE_LISTING = _object(
    {
        **_fields("profileStoreId profilePhoneNumber primaryCategoryProfile", _string),
        # Only strings: a wrong number or link is 2285/2286 in the rule table.
        **_fields("profileDescription textMessageNumber messagingBusinessLink", _string),
        "profileWebsiteUrl": _url,
        "additionalCategories": _string_list,
        "attributes": _mapping_of(_array_of(_ATTRIBUTE_ITEM), "attribute group"),
        "hotelAttributes": _HOTEL_ATTRIBUTES,
        # Only strings here: an invalid link is 2296/2297 in the rule table, not a shape error.
        **_fields("foodDelivery foodTakeout", _string),
    }
)
_MAPS_LISTING = _object(
    {
        "primaryCategory": _dotted_category,
        "mapsWebsiteUrl": _url,
        "additionalCategories": _array_of(_non_empty(_dotted_category)),
        "mapsLocationAttributes": _mapping_of(
            _array_of(_object({"attributeId": _non_empty_string}, required=("attributeId",))),
            "attribute group",
        ),
        "mapsActionLinks": _array_of(
            _object(
                {"id": _non_empty_string, "deepLinkUrl": _non_empty(_url), "appStoreUrl": _url},
                required=("id", "deepLinkUrl"),
            )
        ),
        "phoneNumber": _international_phone,
        **_fields("mapsBusinessName mapsBusinessDescription", _string),
    }
)
SOCIAL_PROFILE_URL_FIELDS = tuple(
    "engineProfileUrl socialProfileUrl shortMessageUrl videoUrl professionalUrl photoUrl pinUrl"
    " bureauUrl lendingUrl".split()
)
_HEALTHCARE = _object(
    {
        "doctorCategories": _array_of(_doctor_category),
        "isProvider": _boolean,
        **_fields(
            "practiceName firstName middleName surName npi credentials university"
            " hospitalAffiliations insurancesAccepted",
            _string,
        ),
    }
)
_PAYLOAD = _object(
    {
        "businessInfo": _BUSINESS_INFO,
        "additionalInfo": _ADDITIONAL_INFO,
        "media": _object(_fields("logoUrl coverImageUrl profileCover socialCover", _url)),
        "optOut": _object(
            _fields(
                "profileCoverOptOut profileLogoOptOut socialCoverOptOut socialLogoOptOut"
                " profileListingOptOut businessProfileOptOut",
                _boolean,
            )
        ),
        "covidInfo": _object(
            {"postDescription": _string, **_fields("covid19SupportLink virtualCareLink", _url)}
        ),
        "engineListing": _object(
            {
                **_fields("primaryCategoryEngine engineDescription enginePhoneNumber", _string),
                "engineCategories": _string_list,
            }
        ),
        "internalListing": _object(
            {
                **_fields("description category displayCategory", _string),
                "subCategories": _string_list,
            }
        ),
        "socialListing": _object(
            {**_fields("socialDescription socialPhoneNumber", _string), "categories": _string_list}
        ),
        "thirdPartyListing": _object(
            {"thirdPartyCategory": _string, "thirdPartySubCategories": _string_list}
        ),
        "profileListing": _PROFILE_LISTING,
        "mapsListing": _MAPS_LISTING,
        "socialProfileURLs": _object(dict.fromkeys(SOCIAL_PROFILE_URL_FIELDS, _url)),
        "healthcare": _HEALTHCARE,
    },
    required=("businessInfo",),
)


# ---------------------------------------------------------------------------- rule table
@dataclass(frozen=True)
class _Listing:
    """The payload under validation, seen against the previously accepted one."""

    payload: dict[str, Any]
    previous: dict[str, Any] | None
    today: datetime.date

    @property
    def is_fixed(self) -> bool:
        return self.previous is not None

    def sends(self, section: str, name: str) -> bool:
        return name in self.payload.get(section, {})

    def sent(self, section: str, name: str) -> Any:
        return self.payload.get(section, {}).get(name)

    def stored(self, section: str, name: str) -> Any:
        group = (self.previous or {}).get(section)
        return group.get(name) if isinstance(group, dict) else None

    def effective(self, section: str, name: str) -> Any:
        """The value after this call: absent from the payload means unchanged."""
        if self.sends(section, name):
            return self.sent(section, name)
        return self.stored(section, name)


Rule = Callable[[_Listing], ListingError | None]

# The provider's code and message of each rule, word for word (its final full stops included).
MESSAGES = {
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
    2515: "Reopen date is not supported for this date.",
    2516: "Opening Soon Date can not be more than 1 year from now.",
    2517: "Opening Soon date should not be less than current date.",
    2518: "Business Status is mandatory to pass with reopen, opened on and opening soon date.",
    2519: "Third party categories change for opening soon business is not allowed.",
    2520: "Open Date is not supported for this date",
    2285: "Invalid text message number",
    2286: "Invalid whatsapp business link",
    6000: "The 'sub_locality' field is mandatory for addresses in New Zealand.",
    6001: "The 'sub_locality' field cannot exceed 80 characters.",
}
FOOD_LINK_CODES = {"foodDelivery": 2296, "foodTakeout": 2297}
MAX_SUB_LOCALITY_LENGTH = 80
SUB_LOCALITY_COUNTRY = "NZ"
STATUS_DATES = ("reopenDate", "openedOnDate", "openingSoonDate")
THIRD_PARTY_CATEGORIES = ("thirdPartyCategory", "thirdPartySubCategories")


def _refused(code: int, field: str) -> ListingError:
    return ListingError(code, MESSAGES[code], field)


def _invalid_food_link(name: str) -> Rule:
    def rule(listing: _Listing) -> ListingError | None:
        link = listing.effective("profileListing", name)
        if link and not _is_http_url(link):
            return _refused(FOOD_LINK_CODES[name], f"profileListing.{name}")
        return None

    return rule


def _is_food_business(category: str | None) -> bool:
    lowered = (category or "").casefold()
    return any(word in lowered for word in FOOD_CATEGORY_WORDS)


def _food_link_for_non_food_category(listing: _Listing) -> ListingError | None:
    category = listing.effective("profileListing", "primaryCategoryProfile")
    if _is_food_business(category):
        return None
    for name in FOOD_LINK_CODES:
        if listing.effective("profileListing", name):
            return _refused(2290, f"profileListing.{name}")
    return None


def _folded(values: list[str] | None) -> list[str]:
    return [value.casefold() for value in values or []]


def _maps_primary_in_additional(listing: _Listing) -> ListingError | None:
    primary = listing.effective("mapsListing", "primaryCategory")
    additional = _folded(listing.effective("mapsListing", "additionalCategories"))
    if primary and primary.casefold() in additional:
        return _refused(2503, "mapsListing.additionalCategories")
    return None


def _too_many_profile_categories(listing: _Listing) -> ListingError | None:
    count = len(listing.effective("profileListing", "additionalCategories") or [])
    if count > MAX_PROFILE_ADDITIONAL_CATEGORIES:
        return _refused(2276, "profileListing.additionalCategories")
    return None


def _duplicate_profile_categories(listing: _Listing) -> ListingError | None:
    folded = _folded(listing.effective("profileListing", "additionalCategories"))
    if len(set(folded)) < len(folded):
        return _refused(2277, "profileListing.additionalCategories")
    return None


def _profile_primary_in_additional(listing: _Listing) -> ListingError | None:
    primary = listing.effective("profileListing", "primaryCategoryProfile")
    additional = _folded(listing.effective("profileListing", "additionalCategories"))
    if primary and primary.casefold() in additional:
        return _refused(2278, "profileListing.additionalCategories")
    return None


def _sent_date(listing: _Listing, name: str) -> datetime.date | None:
    text = listing.sent("additionalInfo", name)
    return _parse_date(text) if text else None


def _reopen_date_in_past(listing: _Listing) -> ListingError | None:
    reopen = _sent_date(listing, "reopenDate")
    if reopen is not None and reopen < listing.today:
        return _refused(2162, "additionalInfo.reopenDate")
    return None


def _changed_while_fixed(name: str, code: int) -> Rule:
    def rule(listing: _Listing) -> ListingError | None:
        if not (listing.is_fixed and listing.sends("additionalInfo", name)):
            return None
        if listing.sent("additionalInfo", name) != listing.stored("additionalInfo", name):
            return _refused(code, f"additionalInfo.{name}")
        return None

    return rule


def _opened_on_date_in_future(listing: _Listing) -> ListingError | None:
    opened = _sent_date(listing, "openedOnDate")
    if opened is not None and opened > listing.today:
        return _refused(2513, "additionalInfo.openedOnDate")
    return None


def _opening_soon_without_date(listing: _Listing) -> ListingError | None:
    status = listing.effective("additionalInfo", "businessStatus")
    if status == OPENING_SOON and not listing.effective("additionalInfo", "openingSoonDate"):
        return _refused(2514, "additionalInfo.openingSoonDate")
    return None


def _a_year_after(day: datetime.date) -> datetime.date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


def _opening_soon_date_too_far(listing: _Listing) -> ListingError | None:
    opening = _sent_date(listing, "openingSoonDate")
    if opening is not None and opening > _a_year_after(listing.today):
        return _refused(2516, "additionalInfo.openingSoonDate")
    return None


def _opening_soon_date_in_past(listing: _Listing) -> ListingError | None:
    opening = _sent_date(listing, "openingSoonDate")
    if opening is not None and opening < listing.today:
        return _refused(2517, "additionalInfo.openingSoonDate")
    return None


def _date_without_status(listing: _Listing) -> ListingError | None:
    if listing.effective("additionalInfo", "businessStatus"):
        return None
    for name in STATUS_DATES:
        if listing.sent("additionalInfo", name):
            return _refused(2518, "additionalInfo.businessStatus")
    return None


def _third_party_change_while_opening_soon(listing: _Listing) -> ListingError | None:
    if not listing.is_fixed:
        return None
    if listing.effective("additionalInfo", "businessStatus") != OPENING_SOON:
        return None
    for name in THIRD_PARTY_CATEGORIES:
        if listing.sends("thirdPartyListing", name) and listing.sent(
            "thirdPartyListing", name
        ) != listing.stored("thirdPartyListing", name):
            return _refused(2519, f"thirdPartyListing.{name}")
    return None


def _is_phone_number(text: str) -> bool:
    return bool(_PHONE_RE.fullmatch(text)) or _is_international_phone(text)


def _invalid_text_message_number(listing: _Listing) -> ListingError | None:
    number = listing.effective("profileListing", "textMessageNumber")
    if number and not _is_phone_number(number):
        return _refused(2285, "profileListing.textMessageNumber")
    return None


def _invalid_messaging_link(listing: _Listing) -> ListingError | None:
    link = listing.effective("profileListing", "messagingBusinessLink")
    if link and not _is_http_url(link):
        return _refused(2286, "profileListing.messagingBusinessLink")
    return None


def _sent_nz_sub_locality(listing: _Listing) -> tuple[bool, str]:
    """(whether the payload carries a New Zealand address, its subLocality)."""
    address = listing.sent("businessInfo", "location")
    if not isinstance(address, dict):
        return False, ""
    country = address.get("countryCode")
    if not country:
        stored = listing.stored("businessInfo", "location")
        country = stored.get("countryCode") if isinstance(stored, dict) else None
    is_nz = isinstance(country, str) and country.upper() == SUB_LOCALITY_COUNTRY
    return is_nz, address.get("subLocality") or ""


def _nz_address_without_sub_locality(listing: _Listing) -> ListingError | None:
    is_nz, sub_locality = _sent_nz_sub_locality(listing)
    if is_nz and not sub_locality:
        return _refused(6000, "businessInfo.location.subLocality")
    return None


def _sub_locality_too_long(listing: _Listing) -> ListingError | None:
    is_nz, sub_locality = _sent_nz_sub_locality(listing)
    if is_nz and len(sub_locality) > MAX_SUB_LOCALITY_LENGTH:
        return _refused(6001, "businessInfo.location.subLocality")
    return None


# The create-listing error table of interface.md, in its order, then the codes it only lists:
# the first failure wins.
RULE_TABLE: tuple[Rule, ...] = (
    _invalid_food_link("foodDelivery"),
    _invalid_food_link("foodTakeout"),
    _food_link_for_non_food_category,
    _maps_primary_in_additional,
    _too_many_profile_categories,
    _duplicate_profile_categories,
    _profile_primary_in_additional,
    _reopen_date_in_past,
    _changed_while_fixed("businessStatus", 2511),
    _changed_while_fixed("openingSoonDate", 2512),
    _opened_on_date_in_future,
    _opening_soon_without_date,
    _opening_soon_date_too_far,
    _opening_soon_date_in_past,
    _date_without_status,
    _third_party_change_while_opening_soon,
    _invalid_text_message_number,
    _invalid_messaging_link,
    _nz_address_without_sub_locality,
    _sub_locality_too_long,
)


# ------------------------------------------------------------------------------ entry point
def _trimmed_copy(value: Any) -> Any:
    """Deep copy of a JSON value with every string stripped of surrounding whitespace."""
    if isinstance(value, dict):
        return {key: _trimmed_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trimmed_copy(item) for item in value]
    if isinstance(value, str):
        return value.strip()
    return value


def validate_listing(payload: object, *, previous: dict | None, today: datetime.date) -> dict:
    """Validate a create-listing body. `previous` is the last accepted (normalized) payload of the
    location, or None if no create has succeeded yet (the listing is not 'fixed').
    Returns the normalized payload to store. Raises ListingError with the first failing rule."""
    if not isinstance(payload, dict):
        raise ListingError(SHAPE_ERROR_CODE, "The request body must be a JSON object")
    normalized = _trimmed_copy(payload)
    _PAYLOAD(normalized, "")
    listing = _Listing(normalized, previous, today)
    for rule in RULE_TABLE:
        error = rule(listing)
        if error is not None:
            raise error
    return normalized

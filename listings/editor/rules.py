"""The provider's create-listing rules (the error table of interface.md), checked on the whole
listing the editor produced, so that each failure is shown on its field before anything is sent.

Each check returns `(code, path, message)`; unlike the provider, which stops at the first
failure, every failure is reported at once. The rules see the listing as it will stand after the
change (`document`) and, for a fixed listing, the last accepted one (`accepted`): the
fixed-listing rules (2511, 2512) and the date rules against today (2162, 2513) apply only to
values that this change sends, as the provider applies them only to values a request carries.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any, NamedTuple

from django.utils.formats import date_format

from listings.editor import formats
from listings.editor.schema import (
    FOOD_CATEGORY_WORDS,
    MAX_PROFILE_ADDITIONAL_CATEGORIES,
    MAX_SUB_LOCALITY,
    OPENING_SOON,
    SUB_LOCALITY_COUNTRIES,
)


class RuleError(NamedTuple):
    code: int
    path: str
    message: str


# What the provider refuses to change once a version of the listing was accepted (the listing
# is "fixed", parameters.md): field of additionalInfo, its code, its name for people.
FIXED_FIELDS = (("businessStatus", 2511, "business status"),
                ("openingSoonDate", 2512, "opening-soon date"))


def _get(document: dict | None, section: str, name: str) -> Any:
    group = (document or {}).get(section)
    return group.get(name) if isinstance(group, dict) else None


def is_food_category(category: str | None) -> bool:
    lowered = (category or "").casefold()
    return any(word in lowered for word in FOOD_CATEGORY_WORDS)


def _changed(document: dict, accepted: dict | None, section: str, name: str) -> bool:
    return (_get(document, section, name) or "") != (_get(accepted, section, name) or "")


def check_listing(document: dict, *, accepted: dict | None, fixed: bool,
                  today: datetime.date) -> Iterator[RuleError]:
    """Every provider rule the listing breaks, in the order of the error table."""
    primary = _get(document, "profileListing", "primaryCategoryProfile") or ""
    links = {name: _get(document, "profileListing", name) or ""
             for name in ("foodDelivery", "foodTakeout")}
    for name, code in (("foodDelivery", 2296), ("foodTakeout", 2297)):
        if links[name] and not formats.is_http_url(links[name]):
            kind = "delivery" if name == "foodDelivery" else "takeout"
            yield RuleError(code, f"profileListing.{name}",
                            f"Enter a valid http(s) link for food {kind}.")
    if not is_food_category(primary):
        for name, link in links.items():
            if link and formats.is_http_url(link):
                yield RuleError(
                    2290, f"profileListing.{name}",
                    "Food delivery and takeout links need a food business as primary profile "
                    f"category (one naming a restaurant, cafe, bakery, bar, pizza, food, meal or "
                    f"deli); the primary category is {primary or 'not set'}.")

    maps_primary = _get(document, "mapsListing", "primaryCategory") or ""
    maps_additional = _get(document, "mapsListing", "additionalCategories") or []
    if maps_primary and maps_primary.casefold() in {c.casefold() for c in maps_additional}:
        yield RuleError(2503, "mapsListing.additionalCategories",
                        f"Remove the primary maps category {maps_primary} from the additional "
                        "categories.")

    additional = _get(document, "profileListing", "additionalCategories") or []
    path = "profileListing.additionalCategories"
    if len(additional) > MAX_PROFILE_ADDITIONAL_CATEGORIES:
        yield RuleError(2276, path, f"At most {MAX_PROFILE_ADDITIONAL_CATEGORIES} additional "
                                    f"categories are allowed; there are {len(additional)}.")
    seen: set[str] = set()
    for category in additional:
        if category.casefold() in seen:
            yield RuleError(2277, path, f"{category} is listed more than once.")
            break
        seen.add(category.casefold())
    if primary and primary.casefold() in {c.casefold() for c in additional}:
        yield RuleError(2278, path, f"The primary category {primary} cannot also be an "
                                    "additional category.")

    reopen = formats.parse_date(_get(document, "additionalInfo", "reopenDate"))
    if reopen and reopen < today and _changed(document, accepted, "additionalInfo", "reopenDate"):
        yield RuleError(2162, "additionalInfo.reopenDate",
                        f"The reopen date cannot be earlier than today ({today:%m/%d/%Y}).")
    if fixed:
        for name, code, label in FIXED_FIELDS:
            if _changed(document, accepted, "additionalInfo", name):
                yield RuleError(code, f"additionalInfo.{name}",
                                f"The {label} cannot be changed once the listing is fixed.")
    opened = formats.parse_date(_get(document, "additionalInfo", "openedOnDate"))
    if opened and opened > today and _changed(document, accepted, "additionalInfo",
                                                "openedOnDate"):
        yield RuleError(2513, "additionalInfo.openedOnDate",
                        f"The opened-on date cannot be in the future (today is {today:%m/%d/%Y}).")
    location = _get(document, "businessInfo", "location")
    if isinstance(location, dict) and (not fixed or _changed(document, accepted, "businessInfo",
                                                             "location")):
        sub_locality = str(location.get("subLocality") or "").strip()
        if str(location.get("countryCode") or "").upper() in SUB_LOCALITY_COUNTRIES:
            if not sub_locality:
                yield RuleError(6000, "businessInfo.location.subLocality",
                                "A New Zealand address needs its sub-locality (the suburb).")
            elif len(sub_locality) > MAX_SUB_LOCALITY:
                yield RuleError(6001, "businessInfo.location.subLocality",
                                f"A sub-locality has at most {MAX_SUB_LOCALITY} characters; "
                                f"this one has {len(sub_locality)}.")
    if (_get(document, "additionalInfo", "businessStatus") == OPENING_SOON
            and not _get(document, "additionalInfo", "openingSoonDate")):
        yield RuleError(2514, "additionalInfo.openingSoonDate",
                        "Give the opening date of a business marked Opening Soon.")


def first_version_notes(document: dict) -> list[str]:
    """What sending the first version of a listing fixes for good, said before it is sent: the
    provider takes the business status and the opening-soon date of the first version it
    accepts and refuses any change of them afterwards, a status left empty included."""
    status = _get(document, "additionalInfo", "businessStatus")
    opening = formats.parse_date(_get(document, "additionalInfo", "openingSoonDate"))
    notes = []
    if status:
        notes.append(f"Once the provider accepts this first version, the business status stays "
                     f"{status}: the provider refuses any later change of it.")
    else:
        notes.append("This first version sets no business status: once the provider accepts "
                     "it, no status can be set later. Choose one under Business status now if "
                     "the business has one.")
    if opening:
        notes.append(f"The opening-soon date ({date_format(opening, 'M j, Y')}) is fixed with "
                     "it, for the same reason.")
    return notes

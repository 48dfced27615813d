"""The two wire dialects: the neutral names the portal uses inside, and the provider's own.

The provider's interface, as this project describes it (docs/provider-interface.md), writes
every field that carries a vendor's name with a neutral word (`engineListing`,
`profileListing`, `mapsMoreHours`, source `PROFILE`). The real provider publishes other names
on the wire (`bingListing`, `gmbListing`, `appleMoreHours`, source `GMB`). The portal keeps the
neutral names everywhere (models, forms, its API, payloads stored in the outbox) and the client
translates at the last moment, for a connection whose dialect is ``provider``.

The translation is this module's tables and nothing else, so that the sandbox, speaking the
provider's dialect, reads the same table backwards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any


class Dialect(StrEnum):
    NEUTRAL = "neutral"
    PROVIDER = "provider"


# Top-level objects of the create-listing body whose names differ.
LISTING_OBJECTS: dict[str, str] = {
    "engineListing": "bingListing",
    "socialListing": "facebookListing",
    "profileListing": "gmbListing",
    "mapsListing": "appleListing",
}

# Fields whose names differ, per object (the object's neutral name). Fields not named here
# keep their name; only their parent object may be renamed.
LISTING_FIELDS: dict[str, dict[str, str]] = {
    "additionalInfo": {"mapsMoreHours": "appleMoreHours"},
    "media": {"profileCover": "gmbCover", "socialCover": "facebookCover"},
    "optOut": {
        "profileLogoOptOut": "gmbLogoOptOut",
        "profileCoverOptOut": "gmbCoverOptOut",
        "socialLogoOptOut": "fbLogoOptOut",
        "socialCoverOptOut": "fbCoverOptOut",
        "profileListingOptOut": "gmbProfileOptOut",
    },
    "engineListing": {
        "primaryCategoryEngine": "primaryCategoryBing",
        "engineDescription": "bingDescription",
        "engineCategories": "bingCategories",
        "enginePhoneNumber": "bingPhoneNumber",
    },
    "socialListing": {
        "socialDescription": "facebookDescription",
        "socialPhoneNumber": "facebookPhoneNumber",
    },
    "profileListing": {
        "profileWebsiteUrl": "googleWebsiteUrl",
        "profileStoreId": "googleStoreId",
        "profilePhoneNumber": "googlePhoneNumber",
        "primaryCategoryProfile": "primaryCategoryGmb",
        "profileDescription": "googleDescription",
        "messagingBusinessLink": "whatsappBusinessLink",
    },
    "mapsListing": {
        "mapsWebsiteUrl": "appleWebsiteUrl",
        "mapsLocationAttributes": "appleLocationAttributes",
        "mapsActionLinks": "appleActionLinks",
        "mapsBusinessName": "appleBusinessName",
        "mapsBusinessDescription": "appleBusinessDescription",
    },
    # The nine networks, in the provider's order. The provider's schema writes `linkedInUrl`
    # and its example bodies `linkedinUrl`; the schema's spelling is sent, both are read.
    "socialProfileURLs": {
        "engineProfileUrl": "googleUrl",
        "socialProfileUrl": "facebookUrl",
        "shortMessageUrl": "twitterUrl",
        "videoUrl": "youTubeUrl",
        "professionalUrl": "linkedInUrl",
        "photoUrl": "instagramUrl",
        "pinUrl": "pintrestUrl",  # the provider's spelling
        "bureauUrl": "bbbUrl",
        "lendingUrl": "lendingtreeUrl",
    },
}

# Other spellings the provider uses on the wire for the same field, read as the first.
WIRE_ALIASES: dict[str, dict[str, str]] = {
    "socialProfileURLs": {"linkedinUrl": "linkedInUrl"},
}

# Category-list `sourceName` values (operation 13).
CATEGORY_SOURCES: dict[str, str] = {
    "ENGINE": "BING",
    "PROFILE": "GMB",
    "SOCIAL": "FACEBOOK",
    "MAPS": "APPLE",
    "HEALTHCARE": "HEALTHCARE",
    "VENDOR": "VENDOR",
}

# Review source aliases (operations 2 and 7), lower case. The provider publishes no list, only
# examples (`google`, `citysearch`); the four vendor-named sources take the vendor's name and
# every other alias is sent as it is.
REVIEW_SOURCES: dict[str, str] = {
    "profile": "google",
    "engine": "bing",
    "social": "facebook",
    "maps": "apple",
}

# The provider publishes no field for the opening-soon and opened-on dates its errors speak of;
# its only date is `reopenDate`, "mandatory for 'Temporarily Closed' and 'Opening Soon'". So on
# its wire the date rides in `reopenDate`, chosen by the status it goes with.
DATE_BY_STATUS: dict[str, str] = {
    "Opening Soon": "openingSoonDate",
    "Open": "openedOnDate",
}


def _inverse(table: Mapping[str, str]) -> dict[str, str]:
    return {wire: neutral for neutral, wire in table.items()}


_WIRE_OBJECTS = _inverse(LISTING_OBJECTS)
_WIRE_FIELDS = {obj: _inverse(fields) for obj, fields in LISTING_FIELDS.items()}
_WIRE_SOURCES = _inverse(CATEGORY_SOURCES)
_WIRE_REVIEW_SOURCES = _inverse(REVIEW_SOURCES)


class UnknownName(ValueError):
    """A name of the other dialect reached a translation that must not guess it."""


def listing_to_wire(payload: Mapping[str, Any], dialect: Dialect | str) -> dict[str, Any]:
    """The create-listing body as the connection's dialect writes it."""
    if Dialect(dialect) is Dialect.NEUTRAL:
        return dict(payload)
    body: dict[str, Any] = {}
    for name, value in payload.items():
        renames = LISTING_FIELDS.get(name, {})
        if isinstance(value, Mapping) and renames:
            value = {renames.get(field, field): item for field, item in value.items()}
        body[LISTING_OBJECTS.get(name, name)] = value
    _move_status_date_to_wire(body)
    return body


def listing_from_wire(body: Mapping[str, Any]) -> dict[str, Any]:
    """A create-listing body in the provider's names, back in the neutral names.

    A neutral name that has a provider counterpart is not the provider's: it is kept under a
    name no rule reads (`~engineListing`), as the real provider ignores what it does not know.
    """
    payload: dict[str, Any] = {}
    for name, value in body.items():
        if name in LISTING_OBJECTS:
            payload[f"~{name}"] = value
            continue
        neutral = _WIRE_OBJECTS.get(name, name)
        renames = _WIRE_FIELDS.get(neutral, {})
        aliases = WIRE_ALIASES.get(neutral, {})
        if isinstance(value, Mapping) and (renames or aliases):
            fields: dict[str, Any] = {}
            for field, item in value.items():
                field = aliases.get(field, field)
                if field in LISTING_FIELDS.get(neutral, {}):
                    fields[f"~{field}"] = item
                else:
                    fields[renames.get(field, field)] = item
            value = fields
        payload[neutral] = value
    _move_status_date_from_wire(payload)
    return payload


def _move_status_date_to_wire(body: dict[str, Any]) -> None:
    info = body.get("additionalInfo")
    if not isinstance(info, Mapping):
        return
    info = dict(info)
    status = info.get("businessStatus")
    for date_status, field in DATE_BY_STATUS.items():
        date = info.pop(field, None)
        # Without a status the date still goes, for the provider to answer its rule 2518.
        if date and status in (date_status, None) and not info.get("reopenDate"):
            info["reopenDate"] = date
    body["additionalInfo"] = info


def _move_status_date_from_wire(payload: dict[str, Any]) -> None:
    info = payload.get("additionalInfo")
    if not isinstance(info, Mapping):
        return
    info = dict(info)
    field = DATE_BY_STATUS.get(info.get("businessStatus"))
    if field and info.get("reopenDate"):
        info[field] = info.pop("reopenDate")
    payload["additionalInfo"] = info


def category_source_to_wire(source_name: str, dialect: Dialect | str) -> str:
    if Dialect(dialect) is Dialect.NEUTRAL:
        return source_name
    # Exact names only: the provider's source names are case-sensitive, so a misspelt one is
    # left for the provider to refuse.
    return CATEGORY_SOURCES.get(source_name, source_name)


def category_source_from_wire(source_name: str) -> str:
    """The neutral source name of a provider one; a neutral name the provider does not use is
    not one of its sources (``UnknownName``)."""
    if source_name in CATEGORY_SOURCES and CATEGORY_SOURCES[source_name] != source_name:
        raise UnknownName(source_name)
    return _WIRE_SOURCES.get(source_name, source_name)


def review_sources_to_wire(aliases: Sequence[str], dialect: Dialect | str) -> list[str]:
    if Dialect(dialect) is Dialect.NEUTRAL:
        return list(aliases)
    return [REVIEW_SOURCES.get(alias.lower(), alias) for alias in aliases]


def review_sources_from_wire(aliases: Sequence[str]) -> list[str]:
    return [_WIRE_REVIEW_SOURCES.get(alias.lower(), alias.lower()) for alias in aliases]

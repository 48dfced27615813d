"""The names a partner account speaks on the wire: the interface's neutral words, or the real
provider's own (`bingListing`, `gmbListing`, source `GMB`), as its published description writes
them (docs/provider-interface.md, "Wire names").

The sandbox keeps the neutral names inside (its rules, its stored listings); an account seeded
in the provider's dialect is read and answered in the provider's names only, as the provider
would: a neutral name sent to it is a field the provider does not know, so it is ignored like
any other, and a neutral category source is an invalid source name.

This table is the sandbox's own statement of the provider's names, written from the provider's
side (wire name -> neutral name) and kept apart from the portal's client on purpose: the
contract tests mean something only if the two sides do not share their translation.
"""

from __future__ import annotations

import re
from typing import Any

NEUTRAL = "neutral"
PROVIDER = "provider"
DIALECTS = (NEUTRAL, PROVIDER)

# Create-listing body: provider path -> neutral path. An object whose fields keep their names
# is listed by its own name only.
LISTING_PATHS = {
    "bingListing": "engineListing",
    "bingListing.primaryCategoryBing": "engineListing.primaryCategoryEngine",
    "bingListing.bingDescription": "engineListing.engineDescription",
    "bingListing.bingCategories": "engineListing.engineCategories",
    "bingListing.bingPhoneNumber": "engineListing.enginePhoneNumber",
    "facebookListing": "socialListing",
    "facebookListing.facebookDescription": "socialListing.socialDescription",
    "facebookListing.facebookPhoneNumber": "socialListing.socialPhoneNumber",
    "gmbListing": "profileListing",
    "gmbListing.googleWebsiteUrl": "profileListing.profileWebsiteUrl",
    "gmbListing.googleStoreId": "profileListing.profileStoreId",
    "gmbListing.googlePhoneNumber": "profileListing.profilePhoneNumber",
    "gmbListing.primaryCategoryGmb": "profileListing.primaryCategoryProfile",
    "gmbListing.googleDescription": "profileListing.profileDescription",
    "gmbListing.whatsappBusinessLink": "profileListing.messagingBusinessLink",
    "appleListing": "mapsListing",
    "appleListing.appleWebsiteUrl": "mapsListing.mapsWebsiteUrl",
    "appleListing.appleLocationAttributes": "mapsListing.mapsLocationAttributes",
    "appleListing.appleActionLinks": "mapsListing.mapsActionLinks",
    "appleListing.appleBusinessName": "mapsListing.mapsBusinessName",
    "appleListing.appleBusinessDescription": "mapsListing.mapsBusinessDescription",
    "additionalInfo.appleMoreHours": "additionalInfo.mapsMoreHours",
    "media.gmbCover": "media.profileCover",
    "media.facebookCover": "media.socialCover",
    "optOut.gmbLogoOptOut": "optOut.profileLogoOptOut",
    "optOut.gmbCoverOptOut": "optOut.profileCoverOptOut",
    "optOut.fbLogoOptOut": "optOut.socialLogoOptOut",
    "optOut.fbCoverOptOut": "optOut.socialCoverOptOut",
    "optOut.gmbProfileOptOut": "optOut.profileListingOptOut",
    "socialProfileURLs.googleUrl": "socialProfileURLs.engineProfileUrl",
    "socialProfileURLs.facebookUrl": "socialProfileURLs.socialProfileUrl",
    "socialProfileURLs.twitterUrl": "socialProfileURLs.shortMessageUrl",
    "socialProfileURLs.youTubeUrl": "socialProfileURLs.videoUrl",
    # The schema writes linkedInUrl, the provider's example bodies linkedinUrl: both are read.
    "socialProfileURLs.linkedInUrl": "socialProfileURLs.professionalUrl",
    "socialProfileURLs.linkedinUrl": "socialProfileURLs.professionalUrl",
    "socialProfileURLs.instagramUrl": "socialProfileURLs.photoUrl",
    "socialProfileURLs.pintrestUrl": "socialProfileURLs.pinUrl",
    "socialProfileURLs.bbbUrl": "socialProfileURLs.bureauUrl",
    "socialProfileURLs.lendingtreeUrl": "socialProfileURLs.lendingUrl",
}

# Category-list sourceName: provider -> neutral.
CATEGORY_SOURCES = {"BING": "ENGINE", "GMB": "PROFILE", "FACEBOOK": "SOCIAL", "APPLE": "MAPS",
                    "HEALTHCARE": "HEALTHCARE", "VENDOR": "VENDOR"}

# Review source aliases: provider -> neutral (the others are the same on both sides).
REVIEW_SOURCES = {"google": "profile", "bing": "engine", "facebook": "social", "apple": "maps"}

# The provider's only date is reopenDate: with these statuses it carries the date the neutral
# names keep apart.
STATUS_DATES = {"Opening Soon": "openingSoonDate", "Open": "openedOnDate"}

_NEUTRAL_ONLY = {neutral for wire, neutral in LISTING_PATHS.items() if wire != neutral}
_WIRE_BY_NEUTRAL = {neutral: wire for wire, neutral in LISTING_PATHS.items()
                    if wire != "socialProfileURLs.linkedinUrl"}


def _split(path: str) -> tuple[str, str | None]:
    parent, _, field = path.partition(".")
    return parent, field or None


def listing_payload(dialect: str, body: Any) -> Any:
    """The create-listing body in the neutral names the sandbox's rules read."""
    if dialect != PROVIDER or not isinstance(body, dict):
        return body
    payload: dict[str, Any] = {}
    for name, value in body.items():
        neutral = LISTING_PATHS.get(name, name)
        if name in _NEUTRAL_ONLY:
            neutral = f"~{name}"  # not a provider name: kept aside, read by no rule
        if isinstance(value, dict):
            value = {_field(name, neutral, field): item for field, item in value.items()}
        payload[neutral] = value
    info = payload.get("additionalInfo")
    if isinstance(info, dict):
        moved = STATUS_DATES.get(info.get("businessStatus"))
        for field in STATUS_DATES.values():
            if field in info:  # a neutral name on the provider's wire
                info[f"~{field}"] = info.pop(field)
        if moved and info.get("reopenDate"):
            info[moved] = info.pop("reopenDate")
    return payload


def message(dialect: str, text: str) -> str:
    """A message about the body (a field path) in the names the account's client sent."""
    if dialect != PROVIDER:
        return text
    for neutral, wire_path in sorted(_WIRE_BY_NEUTRAL.items(), key=lambda item: -len(item[0])):
        text = re.sub(rf"(?<![\w.~]){re.escape(neutral)}(?!\w)", wire_path, text)
    # A name set aside (~) is one the client sent as it is: say it as sent.
    return text.replace("~", "")


def _field(wire_parent: str, neutral_parent: str, field: str) -> str:
    renamed = LISTING_PATHS.get(f"{wire_parent}.{field}")
    if renamed is not None:
        return _split(renamed)[1] or field
    if f"{neutral_parent}.{field}" in _NEUTRAL_ONLY:
        return f"~{field}"
    return field


def category_source(dialect: str, source: str) -> str | None:
    """The neutral source of a sourceName as sent, or None when this dialect has no such
    source (the provider answers "Invalid Source Name")."""
    if dialect != PROVIDER:
        return source
    return CATEGORY_SOURCES.get(source)


def review_source_in(dialect: str, alias: str) -> str:
    if dialect != PROVIDER:
        return alias
    if alias in REVIEW_SOURCES.values() and alias not in REVIEW_SOURCES:
        return f"~{alias}"  # a neutral alias: no source of the provider's is called so
    return REVIEW_SOURCES.get(alias, alias)


def review_source_out(dialect: str, source: str) -> str:
    if dialect != PROVIDER:
        return source
    return {neutral: wire for wire, neutral in REVIEW_SOURCES.items()}.get(source, source)

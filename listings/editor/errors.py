"""Where a provider's rejection of a create-listing call belongs in the editor.

The create-listing error table names a condition, not a field; each code is mapped to the
field the condition is about, and so are the codes the provider documents beyond it (2285,
2286, 2516-2519, 6000, 6001: docs/provider-interface.md). A shape error (code 400) starts with
the dotted path of the offending value (``businessInfo.phone must be shaped ...``), which is
used as it is. 2515 and 2520, whose condition the provider does not state, have no field: their
message is shown above the form.
"""

from __future__ import annotations

import re

# listing error code -> dotted path of the field it is about
ERROR_FIELDS: dict[int, str] = {
    2296: "profileListing.foodDelivery",
    2297: "profileListing.foodTakeout",
    2290: "profileListing.foodDelivery",  # or foodTakeout: see error_field()
    2503: "mapsListing.additionalCategories",
    2276: "profileListing.additionalCategories",
    2277: "profileListing.additionalCategories",
    2278: "profileListing.additionalCategories",
    2162: "additionalInfo.reopenDate",
    2511: "additionalInfo.businessStatus",
    2512: "additionalInfo.openingSoonDate",
    2513: "additionalInfo.openedOnDate",
    2514: "additionalInfo.openingSoonDate",
    2516: "additionalInfo.openingSoonDate",
    2517: "additionalInfo.openingSoonDate",
    2518: "additionalInfo.businessStatus",
    2519: "thirdPartyListing.thirdPartyCategory",  # or the sub-categories: see error_field()
    2285: "profileListing.textMessageNumber",
    2286: "profileListing.messagingBusinessLink",
    6000: "businessInfo.location.subLocality",
    6001: "businessInfo.location.subLocality",
}
# The provider's messages of these name its own fields and vendors ('sub_locality', "whatsapp
# business link"), not what the form shows: what they ask of the person at the form.
PEOPLE_WORDS: dict[int, str] = {
    2285: "Give the text-message number as (xxx) xxx-xxxx, or in international format with "
          "+ and the country code.",
    2286: "Give the messaging link as a full web address, such as https://wa.me/15125550100.",
    2516: "The opening-soon date can be at most a year from today.",
    2517: "The opening-soon date cannot be earlier than today.",
    2518: "Choose a business status to go with the reopen, opened-on or opening-soon date.",
    2519: "The third-party categories of a business marked Opening Soon cannot change.",
    6000: "A New Zealand address needs its sub-locality (the suburb).",
    6001: "The sub-locality can have at most 80 characters.",
}
SHAPE_ERROR_CODE = 400
_LEADING_PATH = re.compile(r"^([A-Za-z][\w]*(?:\.[\w]+|\[\d+\])+)\s")


def error_field(code: int | None, message: str, payload: dict | None = None) -> str | None:
    """The dotted path a rejection belongs to, or None when it is about the whole listing."""
    if code == 2290:
        # The message names the link; failing that, the link the payload carries.
        for name in ("foodDelivery", "foodTakeout"):
            if name in (message or ""):
                return f"profileListing.{name}"
        profile = (payload or {}).get("profileListing") or {}
        if not profile.get("foodDelivery") and profile.get("foodTakeout"):
            return "profileListing.foodTakeout"
    if code == 2519:
        third_party = (payload or {}).get("thirdPartyListing") or {}
        if "thirdPartyCategory" not in third_party and "thirdPartySubCategories" in third_party:
            return "thirdPartyListing.thirdPartySubCategories"
    if code in ERROR_FIELDS:
        return ERROR_FIELDS[code]
    if code == SHAPE_ERROR_CODE:
        match = _LEADING_PATH.match(message or "")
        if match:
            return match[1]
    return None


def rejection_text(code: int | None, message: str) -> str:
    """The provider's refusal as shown on its field: its code and message as they came, then,
    where the message speaks the provider's language, what it asks in the form's words."""
    text = f"Rejected by the provider (code {code}): {message}"
    words = PEOPLE_WORDS.get(code) if code is not None else None
    return f"{text} {words}" if words else text

"""Where a provider's rejection of a create-listing call belongs in the editor.

The create-listing error table names a condition, not a field; each code is mapped to the
field the condition is about. A shape error (code 400) starts with the dotted path of the
offending value (``businessInfo.phone must be shaped ...``), which is used as it is. Codes
the interface lists without a meaning (2515-2522, 6000, 6001) have no field: their message is
shown above the form.
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
    if code in ERROR_FIELDS:
        return ERROR_FIELDS[code]
    if code == SHAPE_ERROR_CODE:
        match = _LEADING_PATH.match(message or "")
        if match:
            return match[1]
    return None

"""Names and closed lists of the create-listing body (spec/interface.md, spec/parameters.md)."""

from __future__ import annotations

BUSINESS_STATUSES = ("Open", "Temporarily Closed", "Permanently Closed", "Opening Soon")
OPENING_SOON = "Opening Soon"
MAX_PROFILE_ADDITIONAL_CATEGORIES = 9
# parameters.md, 2290: a primary profile category naming a food business contains one of these.
FOOD_CATEGORY_WORDS = ("restaurant", "cafe", "bakery", "bar", "pizza", "food", "meal", "deli")

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

COUNTRIES = {
    "US": "United States", "CA": "Canada", "AU": "Australia", "PR": "Puerto Rico",
    "NZ": "New Zealand", "MX": "Mexico", "IN": "India", "UK": "United Kingdom",
    "FR": "France", "IT": "Italy",
}
SUB_LOCALITY_COUNTRIES = ("NZ",)  # where the provider requires one (6000)
MAX_SUB_LOCALITY = 80  # characters (6001)

# Category list sources (parameters.md): what each one fills in the listing.
CATEGORY_SOURCES = {
    "PROFILE": "Business-profile platform",
    "MAPS": "Maps service",
    "ENGINE": "Search engine",
    "SOCIAL": "Social network",
    "VENDOR": "The provider's own listing",
    "HEALTHCARE": "Healthcare specialties",
}

SOCIAL_PROFILE_URL_FIELDS = {
    "engineProfileUrl": "Search platform",
    "socialProfileUrl": "Social network",
    "shortMessageUrl": "Short-message network",
    "videoUrl": "Video network",
    "professionalUrl": "Professional network",
    "photoUrl": "Photo network",
    "pinUrl": "Pin network",
    "bureauUrl": "Business bureau",
    "lendingUrl": "Lending site",
}

MORE_HOURS_KINDS = {"moreHours": "Profile platform", "mapsMoreHours": "Maps service"}

# Fields the provider does not let a request clear: they are only ever sent with a value.
NOT_CLEARABLE = {("businessInfo", "name"), ("additionalInfo", "businessStatus")}

"""Fixed reference data of the sandbox provider: directory sites, review sources, countries,
the category catalogue and other closed lists. Pure data, no database."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Site:
    site_id: int
    name: str
    slug: str

    def listing_url(self, business_number: int) -> str:
        return f"https://{self.slug}.example/biz/{business_number}"


# The first six ids are the ones the provider's own examples use (parameters.md); the long-tail
# directories after them are invented. 22 sites make the spec's sample percentage (68.18% =
# 15/22) reachable.
PROFILE_SITE_ID = 2
SITES: tuple[Site, ...] = (
    Site(2, "Profile Platform", "profile"),
    Site(110, "Social Network", "social"),
    Site(226, "Search Engine", "engine"),
    Site(100, "Provider Listings", "provider"),
    Site(381, "Device Maps", "devicemaps"),
    Site(142, "CityScout", "cityscout"),
    Site(143, "LocalPages", "localpages"),
    Site(144, "TownGuide", "townguide"),
    Site(145, "BizFinder", "bizfinder"),
    Site(146, "NearbyNow", "nearbynow"),
    Site(147, "ShopLocal Directory", "shoplocal"),
    Site(148, "MainStreet Index", "mainstreet"),
    Site(149, "OpenCity List", "opencity"),
    Site(150, "Neighbourly", "neighbourly"),
    Site(151, "Chamber Finder", "chamberfinder"),
    Site(152, "Yellow Ledger", "yellowledger"),
    Site(153, "Route Atlas", "routeatlas"),
    Site(154, "Spotlight Local", "spotlight"),
    Site(155, "Trusted Trades", "trustedtrades"),
    Site(156, "Hometown Hub", "hometownhub"),
    Site(157, "Pinpoint Places", "pinpoint"),
    Site(158, "Civic Listings", "civic"),
)
SITES_BY_ID = {site.site_id: site for site in SITES}
# Sites that need an account connection before they can be published (status Connect).
CONNECTABLE_SITE_IDS = (2, 110)


class SiteState:
    SYNCED = "Synced"
    SUBMITTED = "Submitted"
    IN_PROGRESS = "In Progress"
    ACTION_REQUIRED = "Action Required"
    CONNECT = "Connect"
    OPTED_OUT = "Opted out"


ACTION_REQUIRED_ERRORS = (
    "Phone number does not match the directory's records",
    "Address could not be verified by the directory",
    "Primary category is not supported by this directory",
    "Duplicate listing found; the directory needs a manual merge",
    "Business name contains words the directory does not allow",
)

# Review sources: lower-case alias (what sourceAlias and sources carry) -> site id.
REVIEW_SOURCES = {
    "profile": 2,
    "social": 110,
    "engine": 226,
    "provider": 100,
    "maps": 381,
    "directory": 142,
}

COUNTRY_NAMES = {
    "US": "United States",
    "CA": "Canada",
    "AU": "Australia",
    "PR": "Puerto Rico",
    "NZ": "New Zealand",
    "MX": "Mexico",
    "IN": "India",
    "UK": "United Kingdom",
    "FR": "France",
    "IT": "Italy",
}
CATEGORY_COUNTRIES = tuple(COUNTRY_NAMES)
CATEGORY_SOURCES = ("ENGINE", "PROFILE", "SOCIAL", "MAPS", "HEALTHCARE", "VENDOR")

MEDIA_CATEGORIES = ("EXTERIOR", "INTERIOR", "TEAMS", "ADDITIONAL")
MEDIA_FORMATS = ("PHOTO", "VIDEO")
MAX_MEDIA_PER_REQUEST = 100

CUSTOM_FIELD_TYPES = (
    "TEXT",
    "URL",
    "NUMBER",
    "DATE",
    "DROPDOWN_SINGLE",
    "DROPDOWN_MULTI",
    "TEXT_RAW",
)
DROPDOWN_TYPES = ("DROPDOWN_SINGLE", "DROPDOWN_MULTI")
# Names of the provider's built-in contact fields; compared ignoring case, spaces, - and _.
RESERVED_CUSTOM_FIELD_NAMES = frozenset(
    {
        "id",
        "name",
        "firstname",
        "lastname",
        "fullname",
        "email",
        "emailid",
        "phone",
        "phonenumber",
        "mobile",
        "address",
        "city",
        "state",
        "zip",
        "zipcode",
        "country",
        "countrycode",
        "birthday",
        "created",
        "updated",
        "tags",
        "source",
        "businessnumber",
    }
)

SUBSCRIPTION_EVENTS = (
    "APPOINTMENT_BOOKED",
    "APPOINTMENT_CONFIRMED",
    "APPOINTMENT_COMPLETED",
    "APPOINTMENT_CANCELLED",
    "APPOINTMENT_NOSHOW",
    "APPOINTMENT_RESCHEDULED",
    "SURVEY_COMPLETED",
    "LISTING_UPDATED",
    "CONTACT_CREATED",
    "CONTACT_UPDATED",
    "CONTACT_DELETED",
    "CONTACT_ACTIVITY_UPDATE",
)

SURVEY_QUESTION_TYPES = (
    "label",
    "radio",
    "checkbox",
    "textarea",
    "text",
    "dropdown",
    "rating",
    "matrixdropdown",
    "nps",
    "matrixradio",
)


@dataclass(frozen=True)
class Trade:
    """A kind of business: its display name and the dotted maps path of its category."""

    name: str
    maps_path: str
    specialty: str  # healthcare "Specialty > Subspecialty", or "" when not a practice


TRADES: tuple[Trade, ...] = (
    Trade("Restaurant", "Food.Restaurant", ""),
    Trade("Cafe", "Food.Cafe", ""),
    Trade("Bakery", "Food.Bakery", ""),
    Trade("Pizza Restaurant", "Food.Restaurant.Pizza", ""),
    Trade("Dentist", "Health.Dentist", "Dentistry > General Dentistry"),
    Trade("Orthodontist", "Health.Dentist.Orthodontist", "Dentistry > Orthodontics"),
    Trade("Physiotherapist", "Health.Physiotherapy", "Physical Therapy > Sports Rehabilitation"),
    Trade("Optometrist", "Health.Optometry", "Optometry > Primary Eye Care"),
    Trade("Pharmacy", "Health.Pharmacy", ""),
    Trade("Veterinarian", "Pets.Veterinarian", ""),
    Trade("Hair Salon", "Beauty.HairSalon", ""),
    Trade("Day Spa", "Beauty.Spa", ""),
    Trade("Fitness Center", "Sports.Gym", ""),
    Trade("Yoga Studio", "Sports.Yoga", ""),
    Trade("Plumber", "HomeServices.Plumber", ""),
    Trade("Electrician", "HomeServices.Electrician", ""),
    Trade("Roofing Contractor", "HomeServices.Roofing", ""),
    Trade("Auto Repair Shop", "Automotive.Repair", ""),
    Trade("Car Wash", "Automotive.CarWash", ""),
    Trade("Real Estate Agency", "Services.RealEstate", ""),
    Trade("Law Firm", "Services.Legal", ""),
    Trade("Accounting Firm", "Services.Accounting", ""),
    Trade("Insurance Agency", "Services.Insurance", ""),
    Trade("Hotel", "Travel.Hotel", ""),
    Trade("Florist", "Shopping.Florist", ""),
    Trade("Hardware Store", "Shopping.Hardware", ""),
    Trade("Bookstore", "Shopping.Books", ""),
    Trade("Pet Store", "Shopping.PetSupplies", ""),
    Trade("Dry Cleaner", "Services.DryCleaning", ""),
    Trade("Coffee Roaster", "Food.Coffee", ""),
)

# Spellings the catalogue uses per country where they differ.
_LOCAL_NAMES = {
    "UK": {"Pharmacy": "Chemist", "Auto Repair Shop": "Garage", "Fitness Center": "Fitness Centre"},
    "NZ": {"Pharmacy": "Chemist", "Fitness Center": "Fitness Centre"},
    "AU": {"Pharmacy": "Chemist", "Fitness Center": "Fitness Centre"},
    "FR": {"Restaurant": "Restaurant", "Bakery": "Boulangerie", "Pharmacy": "Pharmacie"},
    "IT": {"Bakery": "Panetteria", "Pharmacy": "Farmacia", "Cafe": "Bar Caffetteria"},
    "MX": {"Bakery": "Panaderia", "Pharmacy": "Farmacia"},
}


def _category_id(source: str, country: str, index: int, trade: Trade) -> str:
    if source == "MAPS":
        return trade.maps_path
    if source == "ENGINE":
        return "engine:" + trade.name.lower().replace(" ", "_")
    if source == "HEALTHCARE":
        return f"hc-{index + 1:04d}"
    base = {"PROFILE": 1000, "SOCIAL": 2000, "VENDOR": 3000}[source]
    return str(base + index + 1)


def category_catalog() -> list[tuple[str, str, str, str, bool]]:
    """Every (source, country, id, name, primary) entry of the catalogue, in a fixed order.

    HEALTHCARE lists the practice specialties; VENDOR marks every third entry as a primary
    category (``primary`` is returned for VENDOR only).
    """
    entries = []
    for source in CATEGORY_SOURCES:
        for country in CATEGORY_COUNTRIES:
            local = _LOCAL_NAMES.get(country, {})
            for index, trade in enumerate(TRADES):
                if source == "HEALTHCARE":
                    if not trade.specialty:
                        continue
                    name = trade.specialty
                else:
                    name = local.get(trade.name, trade.name)
                category_id = _category_id(source, country, index, trade)
                primary = source == "VENDOR" and index % 3 == 0
                entries.append((source, country, category_id, name, primary))
    return entries

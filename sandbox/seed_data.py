"""Word lists and places the seeder draws from. Invented names; real city names."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class City:
    name: str
    state: str
    zip_prefix: str  # first characters of the postal code
    area_codes: tuple[str, ...]
    timezone: str
    suburbs: tuple[str, ...] = ()  # NZ subLocality values


# Country code -> (weight, cities). UK postal codes and CA postal codes are alphanumeric.
CITIES: dict[str, tuple[int, tuple[City, ...]]] = {
    "US": (
        55,
        (
            City("Austin", "TX", "787", ("512", "737"), "America/Chicago"),
            City("Denver", "CO", "802", ("303", "720"), "America/Denver"),
            City("Portland", "OR", "972", ("503", "971"), "America/Los_Angeles"),
            City("Raleigh", "NC", "276", ("919", "984"), "America/New_York"),
            City("Columbus", "OH", "432", ("614", "380"), "America/New_York"),
            City("Phoenix", "AZ", "850", ("602", "480"), "America/Phoenix"),
            City("Nashville", "TN", "372", ("615", "629"), "America/Chicago"),
            City("San Diego", "CA", "921", ("619", "858"), "America/Los_Angeles"),
            City("Tampa", "FL", "336", ("813", "656"), "America/New_York"),
            City("Madison", "WI", "537", ("608",), "America/Chicago"),
        ),
    ),
    "CA": (
        20,
        (
            City("Toronto", "ON", "M5V", ("416", "647"), "America/Toronto"),
            City("Vancouver", "BC", "V6B", ("604", "778"), "America/Vancouver"),
            City("Calgary", "AB", "T2P", ("403", "587"), "America/Edmonton"),
            City("Ottawa", "ON", "K1P", ("613", "343"), "America/Toronto"),
            City("Halifax", "NS", "B3H", ("902", "782"), "America/Halifax"),
        ),
    ),
    "UK": (
        15,
        (
            City("London", "England", "SW1A", ("207", "203"), "Europe/London"),
            City("Manchester", "England", "M1", ("161",), "Europe/London"),
            City("Bristol", "England", "BS1", ("117",), "Europe/London"),
            City("Edinburgh", "Scotland", "EH1", ("131",), "Europe/London"),
            City("Cardiff", "Wales", "CF10", ("292",), "Europe/London"),
        ),
    ),
    "NZ": (
        10,
        (
            City(
                "Auckland",
                "Auckland",
                "10",
                ("921", "930"),
                "Pacific/Auckland",
                ("Ponsonby", "Parnell", "Mount Eden", "Newmarket"),
            ),
            City(
                "Wellington",
                "Wellington",
                "60",
                ("438", "439"),
                "Pacific/Auckland",
                ("Te Aro", "Thorndon", "Kelburn"),
            ),
            City(
                "Christchurch",
                "Canterbury",
                "80",
                ("335", "336"),
                "Pacific/Auckland",
                ("Riccarton", "Sydenham", "Merivale"),
            ),
            City(
                "Dunedin", "Otago", "90", ("347",), "Pacific/Auckland", ("North Dunedin", "Roslyn")
            ),
        ),
    ),
}

# Countries of successive locations: 11 US, 4 CA, 3 UK, 2 NZ in every 20, interleaved.
COUNTRY_CYCLE = (
    "US",
    "CA",
    "UK",
    "NZ",
    "US",
    "US",
    "CA",
    "US",
    "UK",
    "US",
    "US",
    "CA",
    "US",
    "NZ",
    "US",
    "UK",
    "US",
    "CA",
    "US",
    "US",
)

STREETS = (
    "Main",
    "Oak",
    "Maple",
    "Cedar",
    "Elm",
    "Pine",
    "Lake",
    "Hill",
    "Park",
    "River",
    "Church",
    "High",
    "King",
    "Queen",
    "Victoria",
    "Station",
    "Mill",
    "Bridge",
    "Market",
    "Harbour",
)
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Boulevard", "Drive", "Way", "Place")
UNITS = ("Suite 100", "Suite 210", "Unit 4", "Floor 2", "Shop 7")

FIRST_NAMES = (
    "Olivia",
    "Liam",
    "Emma",
    "Noah",
    "Ava",
    "Ethan",
    "Mia",
    "Lucas",
    "Amelia",
    "Mason",
    "Harper",
    "Logan",
    "Aria",
    "Leo",
    "Chloe",
    "Aiden",
    "Grace",
    "Jack",
    "Zoe",
    "Henry",
    "Priya",
    "Arjun",
    "Mei",
    "Hiro",
    "Sofia",
    "Mateo",
    "Aroha",
    "Tane",
    "Fatima",
    "Omar",
)
LAST_NAMES = (
    "Smith",
    "Johnson",
    "Brown",
    "Taylor",
    "Wilson",
    "Martin",
    "Lee",
    "Walker",
    "Hall",
    "Young",
    "King",
    "Wright",
    "Green",
    "Baker",
    "Adams",
    "Nelson",
    "Carter",
    "Mitchell",
    "Roberts",
    "Patel",
    "Nguyen",
    "Kim",
    "Garcia",
    "Singh",
    "Ngata",
    "O'Brien",
    "MacLeod",
    "Dubois",
)
PLACE_WORDS = (
    "Harbor",
    "Summit",
    "Evergreen",
    "Bluebird",
    "Riverside",
    "Northgate",
    "Copper",
    "Willow",
    "Silverline",
    "Beacon",
    "Oakridge",
    "Sunrise",
    "Lakeshore",
    "Granite",
    "Juniper",
    "Meadow",
)

AGENCY_NAMES = ("Northwind Digital", "Brightpath Local", "Tidewater Marketing", "Keystone Reach")
REGIONS = ("North", "South", "East", "West", "Central")

# Enterprise brands: (name, kind, trade name). Kinds alternate so both enterprise types exist.
ENTERPRISE_BRANDS = (
    ("Brightsmile Dental Group", "Enterprise-Location", "Dentist"),
    ("Daily Grind Coffee Co.", "Enterprise-Product", "Cafe"),
    ("Peak Physio Clinics", "Enterprise-Location", "Physiotherapist"),
    ("Crustworks Pizza", "Enterprise-Product", "Pizza Restaurant"),
    ("ClearView Eye Care", "Enterprise-Location", "Optometrist"),
    ("FlexFit Gyms", "Enterprise-Product", "Fitness Center"),
)
COMPETITOR_BRANDS = (
    "Apex",
    "Metro",
    "Prime",
    "Urban",
    "Golden",
    "Liberty",
    "Pioneer",
    "Horizon",
    "Vertex",
    "Crown",
    "Atlas",
    "Vista",
)

QUESTIONS = (
    "Do you have parking on site?",
    "Are you open on public holidays?",
    "Is the entrance wheelchair accessible?",
    "Do you take walk-ins or only appointments?",
    "Do you offer gift cards?",
    "Is there free wifi for customers?",
    "Can I pay with a contactless card?",
    "Do you have a loyalty programme?",
)
ANSWERS = (
    "Yes, there is free parking behind the building.",
    "We are open on most public holidays with reduced hours.",
    "Yes, the main entrance has a ramp and automatic doors.",
    "Walk-ins are welcome, but appointments are recommended at peak times.",
    "Yes, gift cards are available in store and online.",
    "Yes, ask a team member for the password.",
    "All major cards and contactless payments are accepted.",
    "Thanks for asking! Please call us and we'll help.",
)

AI_THEMES = (
    ("Brand visibility", ("Which {trade} is best in {city}?", "Top rated {trade} near me")),
    ("Service quality", ("Is {brand} good value?", "Reviews of {brand}")),
    ("Local discovery", ("{trade} open late in {city}", "Family friendly {trade} in {city}")),
)

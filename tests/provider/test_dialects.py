"""The two wire dialects: every renamed name of the provider's published description, both ways.

The expected wire bodies are written out by hand from the provider's names (not derived from
the module's tables), so that a wrong or missing row of a table fails here.
"""

import pytest

from provider.dialects import (
    Dialect,
    UnknownName,
    category_source_from_wire,
    category_source_to_wire,
    listing_from_wire,
    listing_to_wire,
    review_sources_from_wire,
    review_sources_to_wire,
)
from provider.errors import AuthError, NotFound, RateLimited, Rejected, error_from_reply

NEUTRAL = {
    "businessInfo": {"name": "Brightsmile Austin", "phone": "(512) 555-0100"},
    "additionalInfo": {"mapsMoreHours": {"Dining": []}, "moreHours": {"Dinner": []},
                       "businessStatus": "Open"},
    "media": {"logoUrl": "https://a.example/l.png", "coverImageUrl": "https://a.example/c.png",
              "profileCover": "https://a.example/p.png", "socialCover": "https://a.example/s.png"},
    "optOut": {"businessProfileOptOut": False, "profileLogoOptOut": True,
               "profileCoverOptOut": False, "socialLogoOptOut": True,
               "socialCoverOptOut": False, "profileListingOptOut": True},
    "covidInfo": {"postDescription": "Open as usual"},
    "engineListing": {"primaryCategoryEngine": "Dentist", "engineDescription": "d",
                      "engineCategories": ["Dentist"], "enginePhoneNumber": "5125550100"},
    "internalListing": {"category": "Health", "subCategories": ["Dentist"]},
    "socialListing": {"socialDescription": "s", "socialPhoneNumber": "5125550100",
                      "categories": ["Dentist"]},
    "thirdPartyListing": {"thirdPartyCategory": "Health"},
    "profileListing": {"profileWebsiteUrl": "https://a.example", "profileStoreId": "S1",
                       "profilePhoneNumber": "5125550100", "primaryCategoryProfile": "Dentist",
                       "profileDescription": "p", "messagingBusinessLink": "https://wa.me/1",
                       "additionalCategories": ["Orthodontist"], "textMessageNumber": "1"},
    "mapsListing": {"primaryCategory": "health.dentist", "mapsWebsiteUrl": "https://a.example",
                    "mapsLocationAttributes": {"g": [{"attributeId": "a"}]},
                    "mapsActionLinks": [{"id": "1"}], "mapsBusinessName": "Brightsmile",
                    "mapsBusinessDescription": "m", "phoneNumber": "+15125550100"},
    "socialProfileURLs": {"engineProfileUrl": "https://g", "socialProfileUrl": "https://f",
                          "shortMessageUrl": "https://t", "videoUrl": "https://y",
                          "professionalUrl": "https://l", "photoUrl": "https://i",
                          "pinUrl": "https://p", "bureauUrl": "https://b",
                          "lendingUrl": "https://lt"},
    "healthcare": {"npi": "1245319599"},
}

WIRE = {
    "businessInfo": {"name": "Brightsmile Austin", "phone": "(512) 555-0100"},
    "additionalInfo": {"appleMoreHours": {"Dining": []}, "moreHours": {"Dinner": []},
                       "businessStatus": "Open"},
    "media": {"logoUrl": "https://a.example/l.png", "coverImageUrl": "https://a.example/c.png",
              "gmbCover": "https://a.example/p.png", "facebookCover": "https://a.example/s.png"},
    "optOut": {"businessProfileOptOut": False, "gmbLogoOptOut": True, "gmbCoverOptOut": False,
               "fbLogoOptOut": True, "fbCoverOptOut": False, "gmbProfileOptOut": True},
    "covidInfo": {"postDescription": "Open as usual"},
    "bingListing": {"primaryCategoryBing": "Dentist", "bingDescription": "d",
                    "bingCategories": ["Dentist"], "bingPhoneNumber": "5125550100"},
    "internalListing": {"category": "Health", "subCategories": ["Dentist"]},
    "facebookListing": {"facebookDescription": "s", "facebookPhoneNumber": "5125550100",
                        "categories": ["Dentist"]},
    "thirdPartyListing": {"thirdPartyCategory": "Health"},
    "gmbListing": {"googleWebsiteUrl": "https://a.example", "googleStoreId": "S1",
                   "googlePhoneNumber": "5125550100", "primaryCategoryGmb": "Dentist",
                   "googleDescription": "p", "whatsappBusinessLink": "https://wa.me/1",
                   "additionalCategories": ["Orthodontist"], "textMessageNumber": "1"},
    "appleListing": {"primaryCategory": "health.dentist", "appleWebsiteUrl": "https://a.example",
                     "appleLocationAttributes": {"g": [{"attributeId": "a"}]},
                     "appleActionLinks": [{"id": "1"}], "appleBusinessName": "Brightsmile",
                     "appleBusinessDescription": "m", "phoneNumber": "+15125550100"},
    "socialProfileURLs": {"googleUrl": "https://g", "facebookUrl": "https://f",
                          "twitterUrl": "https://t", "youTubeUrl": "https://y",
                          "linkedInUrl": "https://l", "instagramUrl": "https://i",
                          "pintrestUrl": "https://p", "bbbUrl": "https://b",
                          "lendingtreeUrl": "https://lt"},
    "healthcare": {"npi": "1245319599"},
}


def test_neutral_dialect_sends_the_payload_as_it_is():
    assert listing_to_wire(NEUTRAL, Dialect.NEUTRAL) == NEUTRAL


def test_provider_dialect_writes_every_provider_name():
    assert listing_to_wire(NEUTRAL, "provider") == WIRE


def test_provider_names_read_back_as_the_neutral_payload():
    assert listing_from_wire(WIRE) == NEUTRAL


def test_the_example_bodies_lower_case_linkedin_is_read_as_the_schemas():
    body = {"socialProfileURLs": {"linkedinUrl": "https://l"}}
    assert listing_from_wire(body) == {"socialProfileURLs": {"professionalUrl": "https://l"}}


def test_neutral_names_are_not_provider_names():
    """A provider-dialect reader does not understand the neutral words; it keeps them aside
    under a name no rule reads, as the provider ignores fields it does not know."""
    payload = listing_from_wire({"profileListing": {"profileDescription": "x"},
                                 "media": {"profileCover": "https://c"}})
    assert "profileListing" not in payload
    assert payload["media"] == {"~profileCover": "https://c"}


@pytest.mark.parametrize(("status", "field"), [("Opening Soon", "openingSoonDate"),
                                                ("Open", "openedOnDate")])
def test_status_dates_ride_in_the_reopen_date(status, field):
    neutral = {"additionalInfo": {"businessStatus": status, field: "12/01/2026"}}
    wire = listing_to_wire(neutral, Dialect.PROVIDER)
    assert wire == {"additionalInfo": {"businessStatus": status, "reopenDate": "12/01/2026"}}
    assert listing_from_wire(wire) == neutral


def test_a_temporary_closures_reopen_date_stays_a_reopen_date():
    neutral = {"additionalInfo": {"businessStatus": "Temporarily Closed",
                                  "reopenDate": "12/01/2026"}}
    assert listing_to_wire(neutral, Dialect.PROVIDER) == neutral
    assert listing_from_wire(neutral) == neutral


@pytest.mark.parametrize(("neutral", "wire"), [
    ("ENGINE", "BING"), ("PROFILE", "GMB"), ("SOCIAL", "FACEBOOK"), ("MAPS", "APPLE"),
    ("HEALTHCARE", "HEALTHCARE"), ("VENDOR", "VENDOR")])
def test_category_sources_both_ways(neutral, wire):
    assert category_source_to_wire(neutral, Dialect.PROVIDER) == wire
    assert category_source_to_wire(neutral, Dialect.NEUTRAL) == neutral
    assert category_source_from_wire(wire) == neutral


def test_a_neutral_category_source_is_unknown_to_the_provider():
    with pytest.raises(UnknownName):
        category_source_from_wire("PROFILE")


def test_review_sources_take_the_vendors_name():
    assert review_sources_to_wire(["profile", "engine", "citysearch"], Dialect.PROVIDER) == [
        "google", "bing", "citysearch"]
    assert review_sources_to_wire(["profile"], Dialect.NEUTRAL) == ["profile"]
    assert review_sources_from_wire(["Google", "citysearch"]) == ["profile", "citysearch"]


@pytest.mark.parametrize(("status", "code", "kind"), [
    (401, 1011, NotFound),      # add media, get media, update hierarchy file 1011 under 401
    (400, 1167, AuthError),     # review counts files 1167 under 400
    (401, 2478, Rejected),      # delete-all Q&A files its validation under 401
    (401, 2466, Rejected),
    (401, 1161, AuthError),
    (401, None, AuthError),
    (404, None, NotFound),
    (400, 89, RateLimited),
    (500, 1005, NotFound),
])
def test_the_body_code_decides_before_the_status(status, code, kind):
    body = {"code": code, "message": "m"} if code is not None else None
    assert type(error_from_reply(status, body)) is kind


def test_a_misspelt_category_source_is_left_for_the_provider_to_refuse():
    assert category_source_to_wire("engine", Dialect.PROVIDER) == "engine"
    assert category_source_from_wire("bing") == "bing"

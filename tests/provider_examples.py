"""The provider's own example of a create-listing body, in its wire names.

Rebuilt from what spec/provider-wire.md records of the example in the provider's published
description (OAS:L36762, APIB:L17374): its business, its objects and field names, its types
(hours as the OAS integers, a `zip` number, `establishedYear` a string, objects for the more
hours, an array of action links, `linkedinUrl` in lower case, `subLocality` on a US address,
service areas without a service-area provider) and the values the file quotes. Where the file
quotes no value, a plain one of the declared type stands in.

Adapted only where provider-wire.md section 5 says the example breaks one of the provider's
stated rules:
- `gmbListing.textMessageNumber` `973716-0007` is no phone number (2285): `(973) 716-0007`;
- the `specialHours` entries are reversed (the closed one has hours, the open one none): the
  hours are moved to the open entry.
`additionalInfo.reopenDate` `01/01/2021` with `businessStatus` `Open` stays: on the provider's
wire that date is the opened-on date (provider/dialects.py and sandbox/wire.py read it so).

Its "Delivery" more hours hold a range that starts where it ends (`0`-`0`, the APIB's
`"0:00"`): the provider states no rule against it, so it must be accepted.
"""

from __future__ import annotations

import copy
from typing import Any

_OPEN = {"startHour": 32400, "endHour": 72600}  # 09:00 to 20:10, as the OAS example writes them


def _week(closed_day: int = 6) -> list[dict[str, Any]]:
    return [
        {"day": day, "isOpen": 0, "workingHours": [{"startHour": "", "endHour": ""}]}
        if day == closed_day
        else {"day": day, "isOpen": 1, "workingHours": [dict(_OPEN)]}
        for day in range(7)
    ]


_EXAMPLE: dict[str, Any] = {
    "businessInfo": {
        "name": "Dieci Lifestyle Spa",
        "phone": "(973) 716-0007",
        "websiteUrl": "https://www.diecilifestylespa.com",
        "emailId": "info@diecilifestylespa.com",
        "isAddressHidden": False,
        "isServiceAreaProvider": False,
        # 112 characters, stopping mid-word, as the provider's does.
        "mainBusinessDescription": (
            "A cozy neighborhood cafe serving fresh coffee, pastries and light meals, "
            "for friends to meet in a friendly atmos"
        ),
        "serviceAreas": [{"description": "Livingston"}, {"description": "West Orange"}],
        "location": {
            "address1": "12 East Mount Pleasant Avenue",
            "address2": "",
            "subLocality": "Auckland CBD",
            "city": "Livingston",
            "state": "NJ",
            "zip": 7039,
            "countryCode": "US",
        },
    },
    "additionalInfo": {
        "establishedYear": "2022",
        "timezone": "America/New_York",
        "languages": ["English", "Spanish"],
        "moreHours": {
            "Dinner": [{"day": 0, "isOpen": 1,
                        "workingHours": [{"startHour": 64800, "endHour": 79200}]}],
            "Delivery": [{"day": 1, "isOpen": 1, "workingHours": [{"startHour": 0, "endHour": 0}]}],
        },
        "appleMoreHours": {
            "Dining Hours": [{"day": 2, "isOpen": 1,
                              "workingHours": [{"startHour": 48600, "endHour": 72600}]}],
        },
        "wholeWeekOperating": 0,
        "hoursOfOperations": _week(),
        "specialHours": [
            {"specialDate": "12/25/2030", "startHour": "", "endHour": "", "isOpen": 0},
            {"specialDate": "12/31/2030", "startHour": 32400, "endHour": 43200, "isOpen": 1},
        ],
        "businessStatus": "Open",
        "reopenDate": "01/01/2021",
        "services": "Massage, Facial, Manicure",
        "keywords": "spa, massage, facial",
        "products": "Oils, Lotions",
        "appointmentLink": "https://www.diecilifestylespa.com/appointments",
        "reservationLink": "https://www.diecilifestylespa.com/reservations",
        "menuLink": "https://www.diecilifestylespa.com/menu",
        "orderAheadLink": "https://www.diecilifestylespa.com/order",
        "impressum": "Dieci Lifestyle Spa LLC",
        "paymentTypes": ["Cash Accepted", "Visa", "MasterCard", "American Express"],
        "additionalPaymentTypes": "Gift cards",
        "localPhoneNumber": "(973) 716-0007",
        "tollFreePhoneNumber": "",
        "androidAppURL": "https://play.google.com/store/apps/details?id=com.dieci",
        "iosAppURL": "https://apps.apple.com/us/app/dieci/id1234567890",
    },
    "media": {
        "logoUrl": "https://cdn.diecilifestylespa.com/logo.png",
        "coverImageUrl": "https://cdn.diecilifestylespa.com/cover.jpg",
        "gmbCover": "https://cdn.diecilifestylespa.com/gmb-cover.jpg",
        "facebookCover": "https://cdn.diecilifestylespa.com/facebook-cover.jpg",
    },
    "optOut": {
        "gmbLogoOptOut": False,
        "fbLogoOptOut": False,
        "gmbCoverOptOut": False,
        "fbCoverOptOut": False,
        "gmbProfileOptOut": False,
        "businessProfileOptOut": False,
    },
    "covidInfo": {
        "postDescription": "We follow all safety guidelines.",
        "covid19SupportLink": "https://www.diecilifestylespa.com/covid",
        "virtualCareLink": "https://www.diecilifestylespa.com/virtual",
    },
    "bingListing": {
        "primaryCategoryBing": "Art Restoration Service",
        "bingCategories": ["Art Restoration Service"],
        "bingPhoneNumber": "(973) 716-0007",
        "bingDescription": "Spa in Livingston.",
    },
    "internalListing": {
        "description": "",
        "category": "Beauty",
        "subCategories": ["Spa"],
        "displayCategory": "Spa",
    },
    "facebookListing": {
        "facebookPhoneNumber": "(973) 716-0007",
        "categories": ["Spa"],
        "facebookDescription": "Spa in Livingston.",
    },
    "thirdPartyListing": {
        "thirdPartyCategory": "Car Dealer",
        "thirdPartySubCategories": ["Auto Glass Shop"],
    },
    "gmbListing": {
        "googleWebsiteUrl": "https://www.diecilifestylespa.com",
        "googlePhoneNumber": "(973) 716-0007",
        "googleStoreId": "DIECI-01",
        "primaryCategoryGmb": "Fast Food Restaurant",
        "additionalCategories": ["Day Spa"],
        "googleDescription": "Spa in Livingston.",
        "attributes": {
            "Accessibility": [{"attributeId": "has_wheelchair_accessible_entrance",
                               "attributeName": "Wheelchair accessible entrance",
                               "value": True}],
        },
        "hotelAttributes": {
            group: {group: {f"{group}Attribute": {"attributeId": f"{group}_attribute",
                                                   "attributeName": group.title(),
                                                   "value": True}}}
            for group in ("business", "policies", "property", "services")
        },
        "foodDelivery": "https://www.diecilifestylespa.com/delivery",
        "foodTakeout": "https://www.diecilifestylespa.com/takeout",
        "whatsappBusinessLink": "https://wa.me/9737160007",
        "textMessageNumber": "(973) 716-0007",  # adapted: 973716-0007 breaks 2285
    },
    "appleListing": {
        "phoneNumber": "+1 973-716-0007",
        "appleWebsiteUrl": "https://www.diecilifestylespa.com",
        "primaryCategory": "health_care.dentistry.dental_clinic.dentist",
        "additionalCategories": ["health_care.dentistry.dental_clinic.orthodontist"],
        "appleLocationAttributes": {"Accessibility": [{"attributeId": "wheelchair_accessible"}]},
        "appleActionLinks": [{"id": "book", "deepLinkUrl": "https://www.diecilifestylespa.com/book",
                              "appStoreUrl": "https://apps.apple.com/us/app/dieci/id1234567890"}],
        "appleBusinessName": "Dieci Lifestyle Spa",
        "appleBusinessDescription": "A day spa in Livingston, New Jersey.",
    },
    "socialProfileURLs": {
        "facebookUrl": "http://www.facebook.com/12",
        "twitterUrl": "http://www.twitter.com/12",
        "linkedinUrl": "http://www.linkedin.com/12",
        "googleUrl": "http://plus.google.com/12",
        "youTubeUrl": "http://www.youtube.com/12",
        "instagramUrl": "http://www.instagram.com/12",
        "pintrestUrl": "http://www.pinterest.com/12",
        "bbbUrl": "http://www.bbb.org/12",
        "lendingtreeUrl": "http://www.lendingtree.com/12",
    },
    "healthcare": {
        "doctorCategories": ["Immunologist > Allergy", "Allergist-Immunologist > General"],
        "isProvider": True,
        "practiceName": "Dieci Lifestyle Spa",
        "firstName": "Anna",
        "middleName": "",
        "surName": "Rossi",
        "npi": "1245319599",
        "credentials": "MD",
        "university": "Rutgers University",
        "hospitalAffiliations": "Saint Barnabas Medical Center",
        "insurancesAccepted": "Aetna",
    },
}


def create_listing_example() -> dict[str, Any]:
    """A fresh copy of the provider's example body, in the provider's wire names."""
    return copy.deepcopy(_EXAMPLE)

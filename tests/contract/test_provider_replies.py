"""The provider's exact replies, through the client, in both dialects.

The provider files some errors under another HTTP status than their meaning (1011 "Business id
is invalid" under 401 on add media, get media and update hierarchy; 1167 "API key is missing"
under 400 on review count by rating): the client goes by the body's code, so an unknown
business is never taken for a rejected key. The create-listing and custom-field codes come
back with the provider's messages, and the provider's own example body is accepted.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from provider import AuthError, NotFound, Rejected
from provider.dialects import listing_from_wire
from provider.types import CustomFieldSpec, MediaUpload
from sandbox.models import CustomField, Listing, ListingSubmission
from tests.provider_examples import create_listing_example

from .conftest import LIVE_DB, UNKNOWN_NUMBER, OneConnectionPerRequest, listing_body, wide_range

pytestmark = LIVE_DB

UNKNOWN_UNDER_401 = {
    "add_media": lambda c: c.add_media(
        UNKNOWN_NUMBER, [MediaUpload("https://cdn.example.com/front.jpg", "EXTERIOR", "PHOTO")]
    ),
    "get_media": lambda c: c.get_media(UNKNOWN_NUMBER),
    "update_hierarchy": lambda c: c.update_hierarchy(UNKNOWN_NUMBER, {"Region": "South"}),
}


@pytest.mark.parametrize("name", sorted(UNKNOWN_UNDER_401))
def test_an_unknown_business_filed_under_401_is_not_found_not_a_rejected_key(client, ids, name):
    with pytest.raises(NotFound) as caught:
        UNKNOWN_UNDER_401[name](client)

    error = caught.value
    assert not isinstance(error, AuthError)
    assert (error.http_status, error.code, error.message) == (401, 1011, "Business id is invalid")
    assert error.operation == name


class KeyLost(OneConnectionPerRequest):
    """A session that loses the key header on the way, as a misconfigured proxy would."""

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        headers = {k: v for k, v in (kwargs.pop("headers", None) or {}).items()
                   if k.lower() != "x-api-key"}
        return super().request(*args, headers=headers, **kwargs)


def test_a_missing_key_filed_under_400_is_still_a_key_error(make_client, ids):
    start, end = wide_range()
    keyless = make_client(session=KeyLost())

    with pytest.raises(AuthError) as counts:
        keyless.review_count_by_rating(ids.account, from_date=start, to_date=end)
    assert (counts.value.http_status, counts.value.code) == (400, 1167)
    assert counts.value.message == "API key is missing"

    # Elsewhere the provider files it under 401, to the same effect.
    with pytest.raises(AuthError) as ranking:
        keyless.competitive_ranking(ids.enterprise, start_date=start, end_date=end)
    assert (ranking.value.http_status, ranking.value.code) == (401, 1167)


NZ_ADDRESS = {"address1": "1 Queen Street", "city": "Auckland", "state": "AUK", "zip": "1010",
              "countryCode": "NZ"}


def _with_profile(**fields: str) -> dict:
    body = listing_body()
    body["profileListing"].update(fields)
    return body


def _in_new_zealand(**fields: str) -> dict:
    body = listing_body()
    body["businessInfo"]["location"] = {**NZ_ADDRESS, **fields}
    return body


LISTING_REFUSALS = [
    (_with_profile(textMessageNumber="973716-0007"), 2285, "Invalid text message number"),
    (_with_profile(messagingBusinessLink="wa.me/9737160007"), 2286,
     "Invalid whatsapp business link"),
    (_in_new_zealand(), 6000,
     "The 'sub_locality' field is mandatory for addresses in New Zealand."),
    (_in_new_zealand(subLocality="Grafton" * 12), 6001,
     "The 'sub_locality' field cannot exceed 80 characters."),
]


@pytest.mark.parametrize(("body", "code", "message"), LISTING_REFUSALS,
                         ids=[str(case[1]) for case in LISTING_REFUSALS])
def test_the_listing_codes_interface_md_only_lists_come_back_as_the_provider_words_them(
    client, ids, body, code, message
):
    before = list(Listing.objects.filter(location__number=ids.location).values())
    with pytest.raises(Rejected) as caught:
        client.create_listing(ids.location, body)

    error = caught.value
    assert (error.http_status, error.code, error.message) == (400, code, message)
    assert list(Listing.objects.filter(location__number=ids.location).values()) == before
    submission = ListingSubmission.objects.get(location__number=ids.location)
    assert (submission.accepted, submission.error_code) == (False, code)


def test_a_new_zealand_listing_with_its_sub_locality_is_accepted(client, ids):
    client.create_listing(ids.location, _in_new_zealand(subLocality="Grafton"))

    stored = Listing.objects.get(location__number=ids.location).payload
    assert stored["businessInfo"]["location"]["subLocality"] == "Grafton"


def test_an_unknown_custom_field_type_is_5031(client, ids):
    with pytest.raises(Rejected) as caught:
        client.create_custom_field(ids.account, CustomFieldSpec("Shoe Size", "SHOE_SIZE"))

    error = caught.value
    assert (error.http_status, error.code) == (400, 5031)
    assert error.message == "Method not implemented for unknown custom field type."
    assert not CustomField.objects.filter(field_name="Shoe Size").exists()


def test_a_duplicate_custom_field_is_5022_in_the_provider_s_words(client, ids):
    client.create_custom_field(ids.account, CustomFieldSpec("Shoe Size", "NUMBER"))

    with pytest.raises(Rejected) as caught:
        client.create_custom_field(ids.account, CustomFieldSpec("shoe size", "TEXT"))
    assert (caught.value.code, caught.value.message) == (
        5022, "Another custom field with same name already present.")


def test_the_provider_s_own_example_body_is_accepted(client, ids):
    """The provider's example create-listing body (tests/provider_examples.py), handed to the
    client in the portal's neutral names; the client sends it in the account's dialect."""
    example = listing_from_wire(create_listing_example())

    assert client.create_listing(ids.location, example) is None

    stored = Listing.objects.get(location__number=ids.location).payload
    assert stored["additionalInfo"]["moreHours"]["Delivery"][0]["workingHours"] == [
        {"startHour": 0, "endHour": 0}]
    assert stored["profileListing"]["primaryCategoryProfile"] == "Fast Food Restaurant"
    assert stored["socialProfileURLs"]["professionalUrl"] == "http://www.linkedin.com/12"

"""One step for the page and the API: what a change does to the listing
(`listing_changes_prepare`), and the editor's verdict on a listing given as a document
(`listing_errors`)."""

import copy

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import Role
from listings.editor.diff import listing_payload
from listings.editor.editor import ListingEditor, listing_errors, listing_labels
from listings.editor.services import (
    NOTHING_CHANGED,
    ListingChangedSinceReview,
    listing_changes_prepare,
    listing_submit,
)
from listings.models import ListingVersion
from tests.factories import BusinessFactory
from tests.listings.test_editor_support import SAMPLE, TODAY, browser_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def location(scope):
    business = BusinessFactory(name="Blue Door Cafe", phone="(512) 555-0100",
                               address1="1 Main St", city="Austin", state="TX", zip="78701")
    scope(business.reseller)
    return business


def accept(business, payload):
    version = listing_submit(tenant=business.reseller, actor=None, business=business,
                             payload=payload)
    ListingVersion.objects.filter(pk=version.pk).update(accepted_at="2026-01-01T00:00:00Z")
    return version


def prepare(business, document, **extra):
    return listing_changes_prepare(tenant=business.reseller, business=business,
                                   document=document, **extra)


# -- what changed -----------------------------------------------------------------------------

def test_before_any_acceptance_the_changes_are_measured_against_the_business(location):
    document = {"businessInfo": {"name": "Blue Door Cafe", "phone": "(512) 555-0199",
                                 "location": {"address1": "1 Main St", "city": "Round Rock",
                                              "state": "TX", "zip": "78701",
                                              "countryCode": "US"}}}
    prepared = prepare(location, document)
    assert {c.path: (c.old, c.new) for c in prepared.changes} == {
        "businessInfo.phone": ("(512) 555-0100", "(512) 555-0199"),
        "businessInfo.location.city": ("Austin", "Round Rock")}
    assert prepared.base_number == 0
    # The body carries every filled field: nothing was accepted yet.
    assert prepared.payload == listing_payload(None, document)
    assert prepared.summary == "Business › Phone; Address › City"


def test_after_an_acceptance_they_are_measured_against_it(location):
    accept(location, {"businessInfo": {"name": "Blue Door Cafe", "phone": "(512) 555-0100"}})
    second = accept(location, {"businessInfo": {"name": "Blue Door Cafe",
                                                "phone": "(512) 555-0111"}})
    document = {"businessInfo": {"name": "Blue Door Cafe", "phone": "(512) 555-0122"}}
    prepared = prepare(location, document, base_number=second.number)
    assert [(c.path, c.old, c.new) for c in prepared.changes] == [
        ("businessInfo.phone", "(512) 555-0111", "(512) 555-0122")]
    assert prepared.base_number == second.number == 2
    assert prepared.payload == {"businessInfo": {"name": "Blue Door Cafe",
                                                 "phone": "(512) 555-0122"}}


def test_nothing_changed_is_a_validation_error(location):
    accept(location, {"businessInfo": {"name": "Same"}})
    with pytest.raises(ValidationError) as caught:
        prepare(location, {"businessInfo": {"name": "Same"}}, base_number=1)
    assert caught.value.messages == [NOTHING_CHANGED]
    assert not isinstance(caught.value, ListingChangedSinceReview)


def test_changes_reviewed_against_another_version_are_to_be_reviewed_again(location):
    accept(location, {"businessInfo": {"name": "First"}})
    document = {"businessInfo": {"name": "Second"}}
    with pytest.raises(ListingChangedSinceReview) as caught:
        prepare(location, document, base_number=0)
    assert isinstance(caught.value, ValidationError)
    assert "check the changes again" in caught.value.messages[0]
    # The changes against the version accepted meanwhile, for the new review.
    assert [c.path for c in caught.value.prepared.changes] == ["businessInfo.name"]
    assert caught.value.prepared.base_number == 1
    # Without a reviewed version (the API), there is nothing to compare.
    assert prepare(location, document).base_number == 1


def test_nothing_changed_is_said_before_an_old_review(location):
    accept(location, {"businessInfo": {"name": "Same"}})
    with pytest.raises(ValidationError) as caught:
        prepare(location, {"businessInfo": {"name": "Same"}}, base_number=7)
    assert not isinstance(caught.value, ListingChangedSinceReview)


def test_the_labels_are_the_editors_whatever_the_listing_holds():
    for document, accepted in ((SAMPLE, None), (SAMPLE, SAMPLE), ({}, None)):
        editor = ListingEditor(document=document, accepted=accepted, today=TODAY)
        assert listing_labels() == editor.labels()
    labels = listing_labels()
    labels["businessInfo.phone"] = "changed by a caller"
    assert listing_labels()["businessInfo.phone"] == "Business › Phone"


def test_the_page_and_the_api_say_the_same_when_nothing_changed(client, api_member, location):
    client_api, membership = api_member(Role.MANAGER, reseller=location.reseller)
    client.force_login(membership.user)
    page = client.get(reverse("listing_edit", args=[location.reseller.slug,
                                                    location.remote_id]))
    data = {**browser_data(page.context["editor"]), "base": "0", "action": "send"}
    response = client.post(reverse("listing_edit", args=[location.reseller.slug,
                                                         location.remote_id]), data)
    assert NOTHING_CHANGED in response.content.decode()
    body = {"businessInfo": {"name": "Blue Door Cafe", "phone": "(512) 555-0100",
                             "location": {"address1": "1 Main St", "city": "Austin",
                                          "state": "TX", "zip": "78701", "countryCode": "US"}}}
    response = client_api.post(reverse("api_listing_submission_list",
                                       args=[location.reseller.slug, location.remote_id]),
                               body, format="json")
    assert response.status_code == 400
    assert response.json()["fields"] == {"non_field_errors": [NOTHING_CHANGED]}
    assert not ListingVersion.objects.exists()


# -- the editor's verdict on a document --------------------------------------------------------

def test_a_valid_listing_has_no_errors():
    assert listing_errors(SAMPLE, accepted=None, today=TODAY) == {}
    assert listing_errors(SAMPLE, accepted=SAMPLE, today=TODAY) == {}


def test_errors_are_named_by_the_bodys_dotted_paths():
    document = copy.deepcopy(SAMPLE)
    document["businessInfo"]["phone"] = "not a phone"
    document["profileListing"]["primaryCategoryProfile"] = "Plumber"
    document["profileListing"]["additionalCategories"] = ["Pipes", "Pipes"]
    document["additionalInfo"]["specialHours"] = [
        {"specialDate": "12/24/2026", "isOpen": 1, "startHour": 50400, "endHour": 32400}]
    errors = listing_errors(document, accepted=None, today=TODAY)
    assert set(errors) == {"businessInfo.phone", "profileListing.foodDelivery",
                           "profileListing.additionalCategories", "additionalInfo.specialHours"}
    assert errors["businessInfo.phone"] == ["Enter the phone number shaped (xxx) xxx-xxxx."]
    assert errors["profileListing.additionalCategories"] == ["Pipes is listed more than once."]


def test_a_fixed_listing_is_judged_on_the_status_it_is_sent_with():
    document = copy.deepcopy(SAMPLE)
    document["additionalInfo"]["businessStatus"] = "Permanently Closed"
    errors = listing_errors(document, accepted=SAMPLE, today=TODAY)
    assert errors == {"additionalInfo.businessStatus": [
        "The business status cannot be changed once the listing is fixed."]}


@pytest.mark.parametrize("section,name,value", [
    ("profileListing", "primaryCategoryProfile", 1),
    ("profileListing", "additionalCategories", [1, 2]),
    ("mapsListing", "additionalCategories", True),
    ("mapsListing", "mapsLocationAttributes", ["not", "a", "mapping"]),
])
def test_values_of_the_wrong_type_make_the_listing_malformed(section, name, value):
    document = copy.deepcopy(SAMPLE)
    document[section][name] = value
    assert listing_errors(document, accepted=None, today=TODAY) == {
        "non_field_errors": ["The listing is malformed: check the types of its values."]}


def test_the_forms_bound_to_a_document_see_what_a_browser_would_submit():
    for document, accepted in ((SAMPLE, None), (SAMPLE, SAMPLE), ({}, None)):
        shown = ListingEditor(document=document, accepted=accepted, today=TODAY)
        data = {}
        for form in shown.forms:
            data.update(form.document_data())
        assert data == browser_data(shown)
        editor = ListingEditor.from_document(document, accepted=accepted, today=TODAY)
        assert editor.is_bound


def test_a_category_given_as_a_number_is_a_400_not_a_server_error(api_member, location):
    """The provider's rules expected strings, and the API answered 500 before."""
    client, _ = api_member(Role.MANAGER, reseller=location.reseller)
    response = client.post(reverse("api_listing_submission_list",
                                   args=[location.reseller.slug, location.remote_id]),
                           {"businessInfo": {"name": "X"},
                            "profileListing": {"primaryCategoryProfile": 1}}, format="json")
    assert response.status_code == 400
    assert response.json()["fields"] == {"non_field_errors": [
        "The listing is malformed: check the types of its values."]}

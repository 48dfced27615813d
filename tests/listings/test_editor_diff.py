"""What a change does: the field-level diff shown before sending and the body that is sent."""

import copy

from listings.editor.diff import listing_diff, listing_payload, merge
from sandbox.publishing import merge_listing
from tests.listings.test_editor_support import SAMPLE, all_errors, editor_for


def changed(**fields):
    document = copy.deepcopy(SAMPLE)
    for path, value in fields.items():
        section, name = path.split("__")
        document[section][name] = value
    return document


def test_nothing_changed_means_no_diff_and_only_the_required_name():
    assert listing_diff(SAMPLE, copy.deepcopy(SAMPLE)) == []
    assert listing_payload(SAMPLE, copy.deepcopy(SAMPLE)) == {
        "businessInfo": {"name": "Blue Door Cafe"}}


def test_the_diff_names_each_changed_field_with_old_and_new_values():
    editor = editor_for(SAMPLE, **{"businessinfo-phone": "(512) 555-0199",
                                   "address-city": "Round Rock",
                                   "hours0-end_1": "18:00",
                                   "profilecategories-additionalCategories": ["Bakery"]})
    assert editor.is_valid(), all_errors(editor)
    changes = {c.path: c for c in listing_diff(SAMPLE, editor.document, editor.labels())}
    assert set(changes) == {"businessInfo.phone", "businessInfo.location.city",
                            "additionalInfo.hoursOfOperations",
                            "profileListing.additionalCategories"}
    phone = changes["businessInfo.phone"]
    assert (phone.label, phone.old, phone.new) == ("Business › Phone", "(512) 555-0100",
                                                   "(512) 555-0199")
    assert (changes["businessInfo.location.city"].old,
            changes["businessInfo.location.city"].new) == ("Austin", "Round Rock")
    hours = changes["additionalInfo.hoursOfOperations"]
    assert "13:00–17:00" in hours.old and "13:00–18:00" in hours.new
    assert "Saturday: 10:00–24:00" in hours.new and "Sunday: closed" in hours.new
    assert changes["profileListing.additionalCategories"].new == "Bakery"


def test_the_body_carries_changed_fields_only_and_clears_what_was_emptied():
    document = changed(businessInfo__websiteUrl="", additionalInfo__keywords="coffee",
                       mapsListing__additionalCategories=[])
    assert listing_payload(SAMPLE, document) == {
        "businessInfo": {"name": "Blue Door Cafe", "websiteUrl": ""},
        "additionalInfo": {"keywords": "coffee"},
        "mapsListing": {"additionalCategories": []},
    }


def test_a_first_body_leaves_out_what_was_never_filled():
    editor = editor_for({"businessInfo": {"name": "Shop", "phone": "(512) 555-0100",
                                          "location": {"city": "Austin", "countryCode": "US"}}})
    assert editor.is_valid(), all_errors(editor)
    assert listing_payload(None, editor.document) == {"businessInfo": {
        "name": "Shop", "phone": "(512) 555-0100",
        "location": {"city": "Austin", "countryCode": "US"}}}


def test_the_business_status_is_never_sent_empty():
    document = changed(additionalInfo__businessStatus="")
    assert "additionalInfo" not in listing_payload(SAMPLE, document)
    assert listing_diff(SAMPLE, document) == []


def test_the_address_is_sent_whole_when_one_line_changes():
    document = changed(businessInfo__location={**SAMPLE["businessInfo"]["location"],
                                               "address2": "Suite 5"})
    body = listing_payload(SAMPLE, document)
    assert body["businessInfo"]["location"] == {**SAMPLE["businessInfo"]["location"],
                                                "address2": "Suite 5"}
    assert [c.path for c in listing_diff(SAMPLE, document)] == ["businessInfo.location.address2"]


def test_merging_a_body_matches_the_providers_merge():
    body = {"businessInfo": {"name": "New", "location": {"city": "Dallas"}},
            "additionalInfo": {"keywords": ""}, "healthcare": {"isProvider": True}}
    assert merge(SAMPLE, body) == merge_listing(copy.deepcopy(SAMPLE), copy.deepcopy(body))
    assert merge(SAMPLE, body)["additionalInfo"]["languages"] == ["English", "Spanish"]
    assert SAMPLE["businessInfo"]["name"] == "Blue Door Cafe"  # not modified in place


def test_merging_the_body_onto_the_accepted_listing_gives_the_edited_listing_back():
    editor = editor_for(SAMPLE, **{"businessinfo-websiteUrl": "",
                                   "specialhours-date_0": "2026-12-26"})
    assert editor.is_valid(), all_errors(editor)
    merged = merge(SAMPLE, listing_payload(SAMPLE, editor.document))
    assert listing_diff(merged, editor.document) == []

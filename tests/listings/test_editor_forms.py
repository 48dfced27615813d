"""The listing editor's forms: every provider rule and format on its field, before sending."""

import copy
import datetime

import pytest

from listings.editor import formats
from listings.editor.diff import listing_diff, listing_payload
from listings.editor.editor import ListingEditor
from listings.editor.fields import URLField
from listings.editor.rules import check_listing
from sandbox.listing_rules import ListingError, validate_listing
from tests.listings.test_editor_support import (
    SAMPLE,
    TODAY,
    all_errors,
    browser_data,
    editor_for,
    errors_at,
)


def document_of(editor: ListingEditor) -> dict:
    """The listing the forms describe, before the rules run (what a bypass would send)."""
    for form in editor.forms:
        form.is_valid()
    return editor.build()


def provider_verdict(document: dict, previous: dict | None = None) -> ListingError | None:
    try:
        validate_listing(listing_payload(previous, document), previous=previous, today=TODAY)
    except ListingError as error:
        return error
    return None


def test_the_sample_listing_round_trips_through_the_forms_unchanged():
    editor = editor_for(SAMPLE)
    assert editor.is_valid(), all_errors(editor)
    assert listing_diff(SAMPLE, editor.document) == []
    assert provider_verdict(editor.document) is None


def test_a_first_listing_is_prefilled_from_nothing_but_a_name():
    editor = editor_for({"businessInfo": {"name": "Solo"}})
    assert editor.is_valid(), all_errors(editor)
    assert listing_payload(None, editor.document) == {"businessInfo": {"name": "Solo"}}


# ------------------------------------------------------------------------- listing rules
RULE_CASES = [
    (2296, {"profilelinks-foodDelivery": "order-food-here"}, "profileListing.foodDelivery"),
    (2297, {"profilelinks-foodTakeout": "ftp://takeout.example.com"},
     "profileListing.foodTakeout"),
    (2290, {"profilecategories-primaryCategoryProfile": "Dentist",
            "profilecategories-additionalCategories": []}, "profileListing.foodDelivery"),
    (2503, {"mapscategories-additionalCategories": ["Food.Bakery", "food.cafe"]},
     "mapsListing.additionalCategories"),
    (2276, {"profilecategories-additionalCategories": [f"Shop {n}" for n in range(10)]},
     "profileListing.additionalCategories"),
    (2277, {"profilecategories-additionalCategories": ["Bakery", "BAKERY"]},
     "profileListing.additionalCategories"),
    (2278, {"profilecategories-additionalCategories": ["Bakery", "cafe"]},
     "profileListing.additionalCategories"),
    (2162, {"status-reopenDate": "2026-03-01"}, "additionalInfo.reopenDate"),
    (2513, {"status-openedOnDate": "2026-03-03"}, "additionalInfo.openedOnDate"),
    (2514, {"status-businessStatus": "Opening Soon"}, "additionalInfo.openingSoonDate"),
]


@pytest.mark.parametrize(("code", "changes", "path"), RULE_CASES,
                         ids=[str(case[0]) for case in RULE_CASES])
def test_each_listing_rule_is_reported_on_its_field_as_the_provider_would(code, changes, path):
    editor = editor_for(SAMPLE, **changes)
    assert not editor.is_valid()
    assert errors_at(editor, path), all_errors(editor)
    assert len(all_errors(editor)) == 1, all_errors(editor)  # nothing else is blamed
    # The provider (the sandbox's validator) rejects the same listing with that code.
    rejected = provider_verdict(document_of(editor_for(SAMPLE, **changes)))
    assert rejected is not None and rejected.code == code
    assert rejected.field == path


def test_a_food_link_is_fine_for_a_food_category():
    editor = editor_for(SAMPLE, **{"profilecategories-primaryCategoryProfile": "Pizza Place",
                                   "profilelinks-foodTakeout": "https://pizza.example.com/to"})
    assert editor.is_valid(), all_errors(editor)


def test_every_failed_rule_shows_at_once():
    editor = editor_for(SAMPLE, **{"profilecategories-additionalCategories": ["Cafe", "Cafe"],
                                   "status-openedOnDate": "2030-01-01",
                                   "businessinfo-phone": "not a phone"})
    assert not editor.is_valid()
    messages = errors_at(editor, "profileListing.additionalCategories")
    assert any("more than once" in m for m in messages)
    assert any("primary category" in m for m in messages)
    assert errors_at(editor, "additionalInfo.openedOnDate")
    assert errors_at(editor, "businessInfo.phone")


def test_a_fixed_listing_keeps_its_status_and_opening_soon_date():
    accepted = copy.deepcopy(SAMPLE)
    editor = editor_for(SAMPLE, accepted=accepted,
                        **{"status-businessStatus": "Permanently Closed",
                           "status-openingSoonDate": "2026-06-01"})
    status = editor.forms[2]
    assert status.fields["businessStatus"].disabled
    assert status.fields["openingSoonDate"].disabled
    assert "refuses any change of the business status" in status.fields[
        "businessStatus"].help_text
    assert editor.is_valid(), all_errors(editor)
    assert editor.document["additionalInfo"]["businessStatus"] == "Open"
    assert editor.document["additionalInfo"]["openingSoonDate"] == ""
    assert listing_diff(accepted, editor.document) == []


@pytest.mark.parametrize(("name", "value", "code"), [("businessStatus", "Temporarily Closed", 2511),
                                                     ("openingSoonDate", "05/01/2026", 2512)])
def test_the_fixed_listing_rules_catch_a_change_that_bypasses_the_form(name, value, code):
    changed = copy.deepcopy(SAMPLE)
    changed["additionalInfo"][name] = value
    errors = list(check_listing(changed, accepted=SAMPLE, fixed=True, today=TODAY))
    assert [(e.code, e.path) for e in errors] == [(code, f"additionalInfo.{name}")]
    assert provider_verdict(changed, previous=SAMPLE).code == code
    assert list(check_listing(changed, accepted=None, fixed=False, today=TODAY)) == []


def test_a_past_reopen_date_already_accepted_does_not_block_later_changes():
    accepted = copy.deepcopy(SAMPLE)
    accepted["additionalInfo"]["reopenDate"] = "01/05/2026"
    editor = editor_for(accepted, accepted=accepted, **{"businessinfo-name": "Blue Door"})
    assert editor.is_valid(), all_errors(editor)
    assert provider_verdict(editor.document, previous=accepted) is None


# -------------------------------------------------------------------------- formats
FORMAT_CASES = [
    ({"businessinfo-name": ""}, "businessInfo.name"),
    ({"businessinfo-phone": "512-555-01"}, "businessInfo.phone"),
    ({"businessinfo-websiteUrl": "bluedoor.example.com"}, "businessInfo.websiteUrl"),
    ({"businessinfo-emailId": "hello@"}, "businessInfo.emailId"),
    ({"address-countryCode": "USA"}, "businessInfo.location.countryCode"),
    # The provider requires a sub-locality in New Zealand (6000), of at most 80 characters
    # (6001), and ignores one elsewhere.
    ({"address-countryCode": "NZ", "address-subLocality": ""},
     "businessInfo.location.subLocality"),
    ({"address-countryCode": "NZ", "address-subLocality": "P" * 81},
     "businessInfo.location.subLocality"),
    ({"status-openedOnDate": "2026-02-30"}, "additionalInfo.openedOnDate"),
    ({"status-businessStatus": "Closed for good"}, "additionalInfo.businessStatus"),
    ({"additionalinfo-timezone": "Mars/Olympus"}, "additionalInfo.timezone"),
    ({"additionalinfo-iosAppURL": "itms://apps.example.com"}, "additionalInfo.iosAppURL"),
    ({"mapscategories-primaryCategory": "Cafe"}, "mapsListing.primaryCategory"),
    ({"mapscategories-additionalCategories": ["Food."]}, "mapsListing.additionalCategories"),
    ({"mapsdetails-phoneNumber": "555 0100"}, "mapsListing.phoneNumber"),
    ({"healthcare-doctorCategories": ["Dentistry"]}, "healthcare.doctorCategories"),
    ({"media-logoUrl": "javascript:alert(1)"}, "media.logoUrl"),
    ({"socialprofiles-videoUrl": "https://"}, "socialProfileURLs.videoUrl"),
    ({"actionlinks-menuLink": "http://menu"}, "additionalInfo.menuLink"),
    ({"mapsactionlinks-deepLinkUrl_0": "order"}, "mapsListing.mapsActionLinks[0].deepLinkUrl"),
    ({"mapsactionlinks-id_1": "call"}, "mapsListing.mapsActionLinks[1].deepLinkUrl"),
    ({"hours0-start_0": "9am"}, "additionalInfo.hoursOfOperations[0].workingHours[0].startHour"),
    ({"hours0-end_1": "13:00"}, "additionalInfo.hoursOfOperations[0].workingHours[1].endHour"),
    ({"hours0-start_1": "11:00"}, "additionalInfo.hoursOfOperations[0].workingHours[1].startHour"),
    ({"hours6-start_0": "10:00", "hours6-end_0": "12:00"},
     "additionalInfo.hoursOfOperations[2].isOpen"),
    ({"specialhours-date_1": ""}, "additionalInfo.specialHours[1].specialDate"),
    ({"specialhours-date_2": "2026-12-31", "specialhours-start_2": "13:00",
      "specialhours-end_2": "15:00"}, "additionalInfo.specialHours[2].startHour"),
]


@pytest.mark.parametrize(("changes", "path"), FORMAT_CASES,
                         ids=[case[1] for case in FORMAT_CASES])
def test_each_format_rule_is_reported_on_its_field_and_keeps_the_rest(changes, path):
    editor = editor_for(SAMPLE, **changes, **{"address-city": "Round Rock"})
    assert not editor.is_valid()
    assert errors_at(editor, path), all_errors(editor)
    assert len(all_errors(editor)) == 1, all_errors(editor)
    # Nothing else is lost: the form shows back every value that was entered.
    resubmitted = browser_data(editor)
    assert resubmitted["address-city"] == "Round Rock"
    for name, value in changes.items():
        assert resubmitted[name] == value


# The portal's own format checks agree with the provider's (the sandbox's validator).
FORMAT_SAMPLES = {
    ("businessInfo", "websiteUrl"): [
        "https://a.example.com/x?y=1", "http://localhost:8000/", "http://10.0.0.1/",
        "https://bad host.example.com", "ftp://a.example.com", "https://a", "https://",
        "https://exa_mple.com", "http://a.example.com:99999", "https://xn--bcher-kva.example",
        "mailto:a@example.com", "https://a.example.123"],
    ("businessInfo", "emailId"): ["a@example.com", "a b@example.com", "a@b", "@example.com",
                                  "a@@example.com", "first.last+tag@mail.example.co.uk"],
    ("businessInfo", "phone"): ["(512) 555-0100", "(512)555-0100", "512 555 0100x",
                                "(512) 555-010", "+1 (512) 555-0100"],
    ("mapsListing", "phoneNumber"): ["+1 512 555 0100", "+44 (20) 7946-0958", "+123456",
                                     "+1234567890123456", "1 512 555 0100", "+1 512 555 0100 x"],
    ("mapsListing", "primaryCategory"): ["Food.Cafe", "Food", "Food..Cafe", "Food. Cafe",
                                         "A.B.C"],
    ("additionalInfo", "openedOnDate"): ["01/15/2020", "1/15/2020", "02/30/2020", "2020-01-15"],
}


@pytest.mark.parametrize("where", list(FORMAT_SAMPLES), ids=[".".join(k) for k in FORMAT_SAMPLES])
def test_the_format_checks_agree_with_the_provider(where):
    from listings.editor import fields

    section, name = where
    field = {"websiteUrl": URLField(), "emailId": fields.EmailField(),
             "phone": fields.PhoneField(), "phoneNumber": fields.InternationalPhoneField(),
             "primaryCategory": fields.DottedCategoryField()}.get(name)
    for value in FORMAT_SAMPLES[where]:
        if field is not None:
            try:
                field.clean(value)
                portal_ok = True
            except Exception:  # noqa: BLE001 - ValidationError
                portal_ok = False
            if name == "phone" and portal_ok and value != field.clean(value):
                continue  # the portal reshapes ten digits typed another way; not a format verdict
        else:
            portal_ok = formats.parse_date(value) is not None
        # A status goes with the dates: a date without one is 2518, whatever its format.
        payload = {"businessInfo": {"name": "x"}, "additionalInfo": {"businessStatus": "Open"}}
        payload.setdefault(section, {})[name] = value
        try:
            validate_listing(payload, previous=None, today=TODAY)
            provider_ok = True
        except ListingError as error:
            assert error.code == 400
            provider_ok = False
        assert portal_ok == provider_ok, value


def test_a_phone_typed_with_ten_digits_is_shaped_for_the_provider():
    editor = editor_for(SAMPLE, **{"businessinfo-phone": "512.555.0199"})
    assert editor.is_valid(), all_errors(editor)
    assert editor.document["businessInfo"]["phone"] == "(512) 555-0199"


# ------------------------------------------------------------------------------ hours
@pytest.mark.parametrize(("text", "end", "seconds"), [
    ("00:00", False, 0), ("09:00", False, 32400), ("9:30", False, 34200),
    ("23:59", False, 86340), ("00:00", True, 86400), ("24:00", True, 86400),
    ("17:45", True, 63900), ("09:00:00", False, 32400)])
def test_hours_are_seconds_since_midnight(text, end, seconds):
    assert formats.hour_to_seconds(text, end=end) == seconds


@pytest.mark.parametrize("text", ["24:01", "9:60", "9am", "", "0900", "25:00"])
def test_malformed_hours_are_refused(text):
    with pytest.raises(ValueError):
        formats.hour_to_seconds(text)


def test_seconds_read_back_as_clock_times():
    assert formats.seconds_to_hour(32400) == "09:00"
    assert formats.seconds_to_hour(86400) == "24:00"
    assert formats.seconds_to_hour(86400, for_input=True) == "00:00"
    assert formats.seconds_to_hour("") == ""


def test_a_week_of_hours_becomes_day_entries():
    editor = editor_for({"businessInfo": {"name": "Shop"}}, **{
        "hours2-start_0": "13:00", "hours2-end_0": "17:30",
        "hours2-start_1": "08:30", "hours2-end_1": "12:00",
        "hours4-start_0": "22:00", "hours4-end_0": "00:00",
        "hours6-closed": "on",
    })
    assert editor.is_valid(), all_errors(editor)
    assert editor.document["additionalInfo"]["hoursOfOperations"] == [
        {"day": 2, "isOpen": 1, "workingHours": [{"startHour": 30600, "endHour": 43200},
                                                  {"startHour": 46800, "endHour": 63000}]},
        {"day": 4, "isOpen": 1, "workingHours": [{"startHour": 79200, "endHour": 86400}]},
        {"day": 6, "isOpen": 0, "workingHours": [{"startHour": "", "endHour": ""}]},
    ]
    assert provider_verdict(editor.document) is None


def test_more_ranges_than_rendered_are_read_from_the_submitted_data():
    """JavaScript adds rows by numbering new inputs; the form reads however many arrive."""
    editor = editor_for({"businessInfo": {"name": "Shop"}}, **{
        f"hours1-{column}_{row}": value
        for row, (start, end) in enumerate([("06:00", "07:00"), ("08:00", "09:00"),
                                           ("10:00", "11:00"), ("12:00", "13:00")])
        for column, value in (("start", start), ("end", end))})
    assert editor.is_valid(), all_errors(editor)
    assert len(editor.document["additionalInfo"]["hoursOfOperations"][0]["workingHours"]) == 4


def test_overlapping_ranges_are_refused_but_touching_ones_are_fine():
    touching = editor_for({"businessInfo": {"name": "Shop"}}, **{
        "hours0-start_0": "09:00", "hours0-end_0": "12:00",
        "hours0-start_1": "12:00", "hours0-end_1": "15:00"})
    assert touching.is_valid(), all_errors(touching)
    overlapping = editor_for({"businessInfo": {"name": "Shop"}}, **{
        "hours0-start_0": "09:00", "hours0-end_0": "12:00",
        "hours0-start_1": "11:59", "hours0-end_1": "15:00"})
    assert not overlapping.is_valid()
    assert "overlaps" in all_errors(overlapping)["hours0-start_1"][0]


def test_special_and_more_hours_become_their_payload_shapes():
    editor = editor_for({"businessInfo": {"name": "Shop"}}, **{
        "specialhours-date_0": "2026-12-24", "specialhours-start_0": "09:00",
        "specialhours-end_0": "12:00",
        "morehours-kind_0": "mapsMoreHours", "morehours-label_0": "Kitchen",
        "morehours-day_0": "3", "morehours-start_0": "11:00", "morehours-end_0": "14:00",
    })
    assert editor.is_valid(), all_errors(editor)
    info = editor.document["additionalInfo"]
    assert info["specialHours"] == [{"specialDate": "12/24/2026", "isOpen": 1,
                                     "startHour": 32400, "endHour": 43200}]
    assert info["mapsMoreHours"] == {"Kitchen": [
        {"day": 3, "isOpen": 1, "workingHours": [{"startHour": 39600, "endHour": 50400}]}]}
    assert info["moreHours"] == {}
    assert provider_verdict(editor.document) is None


def test_a_read_only_editor_disables_every_field():
    editor = ListingEditor(document=SAMPLE, accepted=None, read_only=True,
                           today=datetime.date(2026, 3, 2))
    assert all(field.disabled for form in editor.forms for field in form.fields.values())

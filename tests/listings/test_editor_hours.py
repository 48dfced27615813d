"""Opening hours past midnight: the editor accepts 18:00–02:00, sends what the provider's day
entries can carry (a range to midnight and one from midnight on the next day), and reads it
back as 18:00–02:00. The provider's verdict is the sandbox's own validation."""

import copy

from listings.editor.diff import display, listing_diff, listing_payload
from listings.editor.editor import ListingEditor, listing_errors
from listings.editor.hours import join_overnight, split_overnight
from sandbox.listing_rules import ListingError, validate_listing
from tests.listings.test_editor_support import SAMPLE, TODAY, all_errors, editor_for

FRI, SAT, SUN, MON = 4, 5, 6, 0


def provider_verdict(document: dict) -> ListingError | None:
    try:
        validate_listing(listing_payload(None, document), previous=None, today=TODAY)
    except ListingError as error:
        return error
    return None


def week(document: dict) -> list[dict]:
    return document["additionalInfo"]["hoursOfOperations"]


def day_form(editor: ListingEditor, day: int):
    return next(form for form in editor.forms if getattr(form, "day", None) == day
                and form.path.endswith("hoursOfOperations"))


def test_a_range_past_midnight_is_accepted_and_sent_as_the_provider_takes_it():
    editor = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "02:00"})
    assert editor.is_valid(), all_errors(editor)
    entries = {entry["day"]: entry for entry in week(editor.document)}
    assert entries[FRI]["workingHours"] == [{"startHour": 64800, "endHour": 86400}]
    # Saturday keeps its own hours and opens at midnight for the end of Friday's night.
    assert entries[SAT]["workingHours"] == [{"startHour": 0, "endHour": 7200},
                                            {"startHour": 36000, "endHour": 86400}]
    assert [entry["day"] for entry in week(editor.document)] == sorted(entries)
    assert provider_verdict(editor.document) is None


def test_the_night_into_a_closed_or_empty_day_opens_it_from_midnight_only():
    # Sunday is closed in the sample; Monday has hours; Thursday (3) is not given at all.
    editor = editor_for(SAMPLE, **{"hours2-start_0": "20:00", "hours2-end_0": "03:00",
                                   "hours6-closed": None, "hours6-start_0": "19:00",
                                   "hours6-end_0": "01:00"})
    assert editor.is_valid(), all_errors(editor)
    entries = {entry["day"]: entry for entry in week(editor.document)}
    assert entries[3] == {"day": 3, "isOpen": 1,
                          "workingHours": [{"startHour": 0, "endHour": 10800}]}
    # Sunday's night runs into Monday, the first day of the week.
    assert entries[MON]["workingHours"][0] == {"startHour": 0, "endHour": 3600}
    assert provider_verdict(editor.document) is None

    closed_saturday = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "02:00",
                                            "hours5-closed": "on", "hours5-start_0": "",
                                            "hours5-end_0": ""})
    assert closed_saturday.is_valid(), all_errors(closed_saturday)
    saturday = next(e for e in week(closed_saturday.document) if e["day"] == SAT)
    assert saturday == {"day": SAT, "isOpen": 1,
                        "workingHours": [{"startHour": 0, "endHour": 7200}]}
    assert provider_verdict(closed_saturday.document) is None


def test_the_listing_reads_back_as_entered_and_round_trips_unchanged():
    sent = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "02:00",
                                 "hours5-closed": "on", "hours5-start_0": "",
                                 "hours5-end_0": ""})
    assert sent.is_valid(), all_errors(sent)
    document = sent.document

    shown = ListingEditor(document=document, accepted=None, today=TODAY)
    friday, saturday = day_form(shown, FRI), day_form(shown, SAT)
    assert (friday["start_0"].value(), friday["end_0"].value()) == ("18:00", "02:00")
    assert saturday["closed"].value() and saturday["start_0"].value() in (None, "")

    again = editor_for(document)
    assert again.is_valid(), all_errors(again)
    assert again.document == document
    assert listing_diff(document, again.document) == []
    assert listing_errors(document, accepted=None, today=TODAY) == {}


def test_the_review_shows_the_range_as_entered():
    editor = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "02:00"})
    assert editor.is_valid()
    text = display("additionalInfo", "hoursOfOperations", week(editor.document))
    assert "Friday: 18:00–02:00 (next day)" in text
    assert "Saturday: 10:00–24:00" in text and "00:00–02:00" not in text
    closed = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "02:00",
                                   "hours5-start_0": "", "hours5-end_0": ""})
    assert closed.is_valid(), all_errors(closed)
    text = display("additionalInfo", "hoursOfOperations", week(closed.document))
    assert "Saturday: closed after 02:00" in text


def test_the_next_days_own_hours_must_begin_after_the_night():
    editor = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "11:00"})
    assert not editor.is_valid()
    saturday = day_form(editor, SAT)
    assert saturday.errors["start_0"] == [
        "The hours of Friday run until 11:00 after midnight: this range must begin at 11:00 or "
        "later."]
    # Touching is fine, as for two ranges of one day.
    touching = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "10:00"})
    assert touching.is_valid(), all_errors(touching)
    assert provider_verdict(touching.document) is None


def test_a_range_that_opens_and_closes_at_the_same_time_is_refused():
    editor = editor_for(SAMPLE, **{"hours0-start_0": "09:00", "hours0-end_0": "09:00"})
    assert not editor.is_valid()
    assert "must differ from the opening time" in day_form(editor, MON).errors["end_0"][0]


def test_special_hours_say_how_to_give_a_night_past_midnight():
    editor = editor_for(SAMPLE, **{"specialhours-start_1": "20:00",
                                   "specialhours-end_1": "02:00"})
    assert not editor.is_valid()
    message = editor.forms[[f.prefix for f in editor.forms].index("specialhours")].errors[
        "end_1"][0]
    assert "special hours cannot run past midnight" in message
    assert "a row for the next date, from 00:00" in message
    two_rows = editor_for(SAMPLE, **{"specialhours-end_1": "00:00",
                                     "specialhours-date_2": "2027-01-01",
                                     "specialhours-start_2": "00:00",
                                     "specialhours-end_2": "02:00"})
    assert two_rows.is_valid(), all_errors(two_rows)
    assert provider_verdict(two_rows.document) is None


def test_more_hours_run_past_midnight_too():
    editor = editor_for(SAMPLE, **{"morehours-label_1": "Delivery", "morehours-day_1": "4",
                                   "morehours-start_1": "20:00", "morehours-end_1": "01:00"})
    assert editor.is_valid(), all_errors(editor)
    delivery = editor.document["additionalInfo"]["moreHours"]["Delivery"]
    assert delivery[-2:] == [
        {"day": FRI, "isOpen": 1, "workingHours": [{"startHour": 72000, "endHour": 86400}]},
        {"day": SAT, "isOpen": 1, "workingHours": [{"startHour": 0, "endHour": 3600}]}]
    assert provider_verdict(editor.document) is None
    again = editor_for(editor.document)
    assert again.is_valid(), all_errors(again)
    assert again.document == editor.document

    clash = editor_for(SAMPLE, **{"morehours-label_1": "Delivery", "morehours-day_1": "4",
                                  "morehours-start_1": "20:00", "morehours-end_1": "01:00",
                                  "morehours-label_2": "Delivery", "morehours-day_2": "5",
                                  "morehours-start_2": "00:30", "morehours-end_2": "03:00"})
    assert not clash.is_valid()
    more = clash.forms[[f.prefix for f in clash.forms].index("morehours")]
    assert "Delivery on Friday run until 01:00" in more.errors["start_2"][0]


def test_a_rejection_of_the_part_after_midnight_lands_on_the_nights_closing_time():
    editor = editor_for(SAMPLE, **{"hours4-start_0": "18:00", "hours4-end_0": "02:00"})
    assert editor.is_valid()
    document = editor.document
    position = [entry["day"] for entry in week(document)].index(SAT)
    shown = ListingEditor(document=document, accepted=None, today=TODAY)
    shown.notice(f"additionalInfo.hoursOfOperations[{position}].workingHours[0].startHour",
                 "Rejected", document)
    assert day_form(shown, FRI).notices == {"end_0": ["Rejected"]}
    shown.notice(f"additionalInfo.hoursOfOperations[{position}].workingHours[1].endHour",
                 "Also rejected", document)
    assert day_form(shown, SAT).notices == {"end_0": ["Also rejected"]}


def test_whole_days_and_hours_that_merely_touch_midnight_are_left_alone():
    whole_week = [{"day": day, "isOpen": 1, "workingHours": [{"startHour": 0, "endHour": 86400}]}
                  for day in range(7)]
    assert join_overnight(copy.deepcopy(whole_week)) == whole_week
    assert split_overnight(whole_week) == whole_week
    # Open to midnight, then a next day that starts later: nothing to join.
    late = [{"day": FRI, "isOpen": 1, "workingHours": [{"startHour": 64800, "endHour": 86400}]},
            {"day": SAT, "isOpen": 1, "workingHours": [{"startHour": 3600, "endHour": 7200}]}]
    assert join_overnight(copy.deepcopy(late)) == late
    # Something that is not a week of day entries is shown as it is.
    odd = [{"day": 4}, {"day": 4}]
    assert join_overnight(odd) is odd


def test_a_document_given_whole_must_carry_a_night_as_the_provider_does():
    """The API sends its body as given: a night written as 18:00–02:00 in one range would be
    refused by the provider, so it is refused before, with the way to write it."""
    document = copy.deepcopy(SAMPLE)
    week(document)[0]["workingHours"] = [{"startHour": 64800, "endHour": 7200}]
    errors = listing_errors(document, accepted=None, today=TODAY)
    path = "additionalInfo.hoursOfOperations[0].workingHours[0].endHour"
    assert "send it as two, up to 86400 on its day and from 0 on the next day" in errors[path][0]
    assert provider_verdict(document) is not None
    week(document)[:1] = [
        {"day": MON, "isOpen": 1, "workingHours": [{"startHour": 64800, "endHour": 86400}]},
        {"day": 1, "isOpen": 1, "workingHours": [{"startHour": 0, "endHour": 7200}]}]
    assert listing_errors(document, accepted=None, today=TODAY) == {}
    assert provider_verdict(document) is None

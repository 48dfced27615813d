"""Shared helpers of the listing editor tests (no tests here): a full sample listing and the
form data a browser submits for an editor, so that a test changes one field and keeps the rest."""

from __future__ import annotations

import datetime

from django import forms

from listings.editor.editor import ListingEditor
from listings.editor.fields import RepeatedInput

TODAY = datetime.date(2026, 3, 2)  # a Monday

SAMPLE = {
    "businessInfo": {
        "name": "Blue Door Cafe",
        "phone": "(512) 555-0100",
        "websiteUrl": "https://bluedoor.example.com",
        "emailId": "hello@bluedoor.example.com",
        "mainBusinessDescription": "Coffee and cake.",
        "isAddressHidden": False,
        "isServiceAreaProvider": True,
        "serviceAreas": [{"description": "Austin"}, {"description": "Round Rock"}],
        "location": {"address1": "1 Main St", "city": "Austin", "state": "TX", "zip": "78701",
                     "countryCode": "US"},
    },
    "additionalInfo": {
        "businessStatus": "Open",
        "openedOnDate": "01/15/2020",
        "wholeWeekOperating": 0,
        "hoursOfOperations": [
            {"day": 0, "isOpen": 1, "workingHours": [{"startHour": 32400, "endHour": 43200},
                                                      {"startHour": 46800, "endHour": 61200}]},
            {"day": 5, "isOpen": 1, "workingHours": [{"startHour": 36000, "endHour": 86400}]},
            {"day": 6, "isOpen": 0, "workingHours": [{"startHour": "", "endHour": ""}]},
        ],
        "specialHours": [
            {"specialDate": "12/25/2026", "isOpen": 0, "startHour": "", "endHour": ""},
            {"specialDate": "12/31/2026", "isOpen": 1, "startHour": 32400, "endHour": 50400},
        ],
        "moreHours": {"Delivery": [
            {"day": 1, "isOpen": 1, "workingHours": [{"startHour": 39600, "endHour": 50400}]}]},
        "mapsMoreHours": {},
        "appointmentLink": "https://bluedoor.example.com/book",
        "keywords": "coffee, cake",
        "languages": ["English", "Spanish"],
        "paymentTypes": ["Cash", "Contactless"],
        "timezone": "America/Chicago",
        "establishedYear": "2019",
    },
    "profileListing": {
        "primaryCategoryProfile": "Cafe",
        "additionalCategories": ["Bakery", "Coffee Roaster"],
        "foodDelivery": "https://order.example.com/bluedoor",
        "attributes": {"amenities": [{"attributeId": "wifi", "attributeName": "Wi-Fi",
                                      "value": True}]},
    },
    "mapsListing": {
        "primaryCategory": "Food.Cafe",
        "additionalCategories": ["Food.Bakery"],
        "phoneNumber": "+1 512 555 0100",
        "mapsLocationAttributes": {"payments": [{"attributeId": "nfc"}]},
        "mapsActionLinks": [{"id": "order", "deepLinkUrl": "https://order.example.com/b"}],
    },
    "media": {"logoUrl": "https://media.example.com/logo.png"},
    "optOut": {"socialLogoOptOut": True},
    "socialProfileURLs": {"videoUrl": "https://video.example.com/bluedoor"},
    "healthcare": {},
}


def browser_data(editor: ListingEditor) -> dict[str, object]:
    """What a browser submits for the editor as rendered (its initial values)."""
    data: dict[str, object] = {}
    for form in editor.forms:
        for bound in form:
            widget = bound.field.widget
            value = bound.value()
            if isinstance(widget, forms.CheckboxInput):
                if value:
                    data[bound.html_name] = "on"
            elif isinstance(widget, RepeatedInput):
                data[bound.html_name] = list(widget.format_value(value))
            elif isinstance(value, datetime.date):
                data[bound.html_name] = value.isoformat()
            else:
                data[bound.html_name] = "" if value is None else str(value)
    return data


def editor_for(document: dict, *, accepted: dict | None = None, **changes) -> ListingEditor:
    """A bound editor: the form `document` renders, submitted with `changes` applied."""
    data = browser_data(ListingEditor(document=document, accepted=accepted, today=TODAY))
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    from django.http import QueryDict

    query = QueryDict(mutable=True)
    for name, value in data.items():
        query.setlist(name, value if isinstance(value, list) else [value])
    return ListingEditor(query, document=document, accepted=accepted, today=TODAY)


def errors_at(editor: ListingEditor, path: str) -> list[str]:
    """The messages of the field a dotted payload path names (form errors and notices)."""
    form, name = editor.locate(path, editor.source)
    assert form is not None, f"no field for {path}"
    key = name or "__all__"
    return [*form.errors.get(key, []), *form.notices.get(name, [])] if form.is_bound \
        else list(form.notices.get(name, []))


def all_errors(editor: ListingEditor) -> dict[str, list[str]]:
    found = {f"{form.prefix}-{name}": list(messages) for form in editor.forms
             for name, messages in form.errors.items()}
    if editor.messages:
        found["editor"] = list(editor.messages)
    return found

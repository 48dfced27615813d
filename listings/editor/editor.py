"""The listing editor: every form of the create-listing body, checked together.

`ListingEditor` holds the section forms (`listings.editor.forms`, `listings.editor.rows`) in the
order of the page, builds the whole listing from them (`document`), checks the provider's rules
on it (`listings.editor.rules`) and puts each message on the field its dotted path names, for
the editor's own checks and for a rejection by the provider alike. `listing_errors` gives the
same verdict on a listing given as a document (the API's body), by dotted path.
"""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from django.forms.utils import ErrorDict
from django.utils import timezone

from listings.editor import forms as f
from listings.editor import hours
from listings.editor import rows as r
from listings.editor.errors import error_field, rejection_text
from listings.editor.rules import check_listing

SECTIONS: tuple[tuple[str, str, str, tuple[type[f.SectionForm], ...]], ...] = (
    ("business", "Business information and address", "", (f.BusinessInfoForm, f.AddressForm)),
    ("status", "Business status", "", (f.StatusForm,)),
    ("hours", "Opening hours",
     "Per weekday: tick Closed, or give one or more ranges (HH:MM, 24-hour clock; a closing "
     "time of 00:00 means midnight). A closing time earlier than the opening time runs past "
     "midnight: 18:00–02:00 on Friday closes at 02:00 in the night to Saturday. The provider "
     "takes each day's hours apart, so it is sent as Friday 18:00–24:00 and Saturday "
     "00:00–02:00, and reads back as 18:00–02:00. A day left empty is not sent.",
     (f.HoursOptionsForm, r.DayHoursForm)),
    ("special-hours", "Special hours", "", (r.SpecialHoursForm,)),
    ("more-hours", "More hours", "", (r.MoreHoursForm,)),
    ("categories", "Categories",
     "Choose from the provider's category list of each source for the listing's country, or "
     "type a category.",
     (f.ProfileCategoriesForm, f.MapsCategoriesForm, f.EngineCategoriesForm,
      f.SocialCategoriesForm, f.InternalCategoriesForm, f.ThirdPartyCategoriesForm)),
    ("attributes", "Attributes", "", (r.ProfileAttributesForm, r.MapsAttributesForm)),
    ("links", "Action links", "", (f.ActionLinksForm, f.ProfileLinksForm,
                                   r.MapsActionLinksForm)),
    ("media", "Media links and opt-outs", "", (f.MediaForm, f.OptOutForm)),
    ("social", "Social profile URLs", "", (f.SocialProfilesForm,)),
    ("healthcare", "Healthcare", "", (f.HealthcareForm,)),
    ("directories", "Directory details", "", (f.ProfileDetailsForm, f.MapsDetailsForm,
                                              f.EngineDetailsForm, f.SocialDetailsForm,
                                              f.InternalDetailsForm)),
    ("more", "More information", "", (f.AdditionalInfoForm, f.CovidInfoForm)),
)


def _prefix(form_class: type) -> str:
    return form_class.__name__.removesuffix("Form").lower()


@dataclass
class Section:
    key: str
    title: str
    description: str
    forms: list[f.SectionForm] = field(default_factory=list)

    @property
    def has_messages(self) -> bool:
        return any(form.has_messages for form in self.forms)

    @property
    def day_forms(self) -> list[r.DayHoursForm]:
        return [form for form in self.forms if isinstance(form, r.DayHoursForm)]

    @property
    def other_forms(self) -> list[f.SectionForm]:
        return [form for form in self.forms if not isinstance(form, r.DayHoursForm)]


class ListingEditor:
    """All the forms of one listing. `document` is the listing the forms start from (the last
    submitted version), `accepted` the last accepted one (None before the first acceptance,
    while the listing is not fixed)."""

    def __init__(self, data: Any = None, *, document: dict, accepted: dict | None,
                 read_only: bool = False, today: datetime.date | None = None):
        self.source = document
        self.accepted = accepted
        self.fixed = accepted is not None
        self.read_only = read_only
        self.today = today or timezone.localdate()
        self.document: dict | None = None
        self.messages: list[str] = []
        context = {"fixed": self.fixed, "accepted": accepted}
        options = {"document": document, "read_only": read_only, "context": context}
        self.sections: list[Section] = []
        self.forms: list[f.SectionForm] = []
        for key, title, description, classes in SECTIONS:
            section = Section(key, title, description)
            for form_class in classes:
                if form_class is r.DayHoursForm:
                    section.forms += [r.DayHoursForm(data, day=day, prefix=f"hours{day}",
                                                     **options) for day in range(7)]
                else:
                    section.forms.append(form_class(data, prefix=_prefix(form_class),
                                                    **options))
            self.sections.append(section)
            self.forms += section.forms

    @classmethod
    def from_document(cls, document: dict, *, accepted: dict | None,
                      today: datetime.date | None = None) -> ListingEditor:
        """The editor bound to `document` itself, as if its page were submitted unchanged:
        `is_valid()` then checks the document's values with the forms' own field checks."""
        shown = cls(document=document, accepted=accepted, today=today)
        data: dict[str, Any] = {}
        for form in shown.forms:
            data.update(form.document_data())
        return cls(data, document=document, accepted=accepted, today=today)

    @property
    def is_bound(self) -> bool:
        return self.forms[0].is_bound

    def is_valid(self) -> bool:
        """Each form's own checks, then the provider's rules on the whole listing.

        The rules run even when some form has errors (on what could be read), so that every
        problem shows at once; a field that already has an error gets no second one."""
        forms_valid = all([form.is_valid() for form in self.forms])
        for section in self.sections:
            days = section.day_forms
            for day, following in zip(days, days[1:] + days[:1], strict=True):
                day.check_next_day(following)
        try:
            document = self.build()
        except (KeyError, TypeError, ValueError):  # a form too broken to read
            document = None
        if document is not None:
            own = {(id(form), name) for form in self.forms for name in form.errors}
            for error in check_listing(document, accepted=self.accepted, fixed=self.fixed,
                                       today=self.today):
                form, name = self.locate(error.path, document)
                if form is None:
                    self.messages.append(error.message)
                elif (id(form), name or "__all__") not in own:
                    form.add_error(name, error.message)
        if not forms_valid or self.messages or any(form.errors for form in self.forms):
            return False
        self.document = document
        return True

    def build(self) -> dict:
        document: dict = {}
        for form in self.forms:
            form.contribute(document)
        info = document.get("additionalInfo") or {}
        if "hoursOfOperations" in info:  # the whole week is known only now
            info["hoursOfOperations"] = hours.split_overnight(info["hoursOfOperations"])
        return document

    def hold(self) -> None:
        """Show what was submitted without checking it: the page was sent for something else
        than a review (fetching the category lists), and a half-typed field is not wrong yet."""
        for form in self.forms:
            form._errors = ErrorDict()  # Django checks a bound form when `errors` is None
            form.cleaned_data = {}

    @property
    def country_code(self) -> str:
        """The listing's country as the form holds it now: the one submitted, else stored."""
        for form in self.forms:
            if isinstance(form, f.AddressForm):
                return str(form["countryCode"].value() or "").strip().upper()
        return ""

    # -- messages on fields ------------------------------------------------------------
    def locate(self, path: str, document: dict | None = None) -> tuple[f.SectionForm, str | None]:
        """The form and field a dotted path points at; a longer path falls back to its
        enclosing field (``...serviceAreas[0].description`` -> ``serviceAreas``)."""
        document = document if document is not None else self.source
        candidate = path
        while candidate:
            for form in self.forms:
                if isinstance(form, r.DayHoursForm):
                    found = form.locate_in(document, candidate)
                else:
                    found = form.locate(candidate)
                if found is not False:
                    return form, found
            trimmed = re.sub(r"(\[\d+\]|\.[^.\[\]]+)$", "", candidate)
            candidate = "" if trimmed == candidate else trimmed
        return None, None

    def notice(self, path: str | None, message: str, document: dict | None = None) -> None:
        """A message on a field of an unbound editor (the provider's answer to a version)."""
        form, name = self.locate(path, document) if path else (None, None)
        if form is None:
            self.messages.append(message)
        else:
            form.notice(name, message)

    def show_rejection(self, *, code: int | None, message: str, payload: dict | None,
                       document: dict | None = None) -> str | None:
        """Put a provider's rejection next to its field; returns the field's path."""
        path = error_field(code, message, payload)
        self.notice(path, rejection_text(code, message), document)
        return path

    def errors_by_path(self) -> dict[str, list[str]]:
        """The forms' messages of a bound editor by the dotted path of their field; a row-based
        part's (and a form's own) messages on the part's path, e.g.
        ``additionalInfo.specialHours``. The messages of no form are in `messages`."""
        found: dict[str, list[str]] = {}
        for form in self.forms:
            for name, messages in form.errors.items():
                if isinstance(form, r.RowsForm) or name == "__all__":
                    path = form.path or "non_field_errors"
                else:
                    path = f"{form.path}.{name}" if form.path else name
                known = found.setdefault(path, [])
                known.extend(str(m) for m in messages if str(m) not in known)
        return found

    # -- labels for the diff ------------------------------------------------------------
    def labels(self) -> dict[str, str]:
        labels: dict[str, str] = {}
        for section in self.sections:
            for form in section.forms:
                if isinstance(form, r.RowsForm):
                    labels.setdefault(form.path, f"{section.title} › {form.legend}"
                                      if form.legend != section.title else section.title)
                    continue
                for path, name in form.field_paths().items():
                    labels[path] = f"{form.legend} › {form.fields[name].label}"
        labels["additionalInfo.hoursOfOperations"] = "Opening hours"
        labels["additionalInfo.mapsMoreHours"] = "More hours › Maps service"
        labels["additionalInfo.moreHours"] = "More hours › Profile platform"
        return labels


@functools.cache
def _labels() -> dict[str, str]:
    return ListingEditor(document={}, accepted=None).labels()


def listing_labels() -> dict[str, str]:
    """The label of every field of the listing by dotted path, for the list of changes. They
    are the forms' own, the same whatever the listing holds."""
    return dict(_labels())


MALFORMED = "The listing is malformed: check the types of its values."


def listing_errors(document: dict, *, accepted: dict | None,
                   today: datetime.date | None = None) -> dict[str, list[str]]:
    """The editor's verdict on a whole listing given as a document (e.g. the API's body merged
    onto the last accepted version, `accepted`; None before the first acceptance): the forms'
    field checks and the provider's rules, as dotted path → messages, empty when the listing
    may be sent. The paths are those of `ListingEditor.errors_by_path`; what belongs to no field
    is under ``non_field_errors``."""
    today = today or timezone.localdate()
    try:
        editor = ListingEditor.from_document(document, accepted=accepted, today=today)
        valid = editor.is_valid()
        # The provider's rules on the document as given, too: a form that is disabled once the
        # listing is fixed (the business status) would otherwise check the accepted value
        # instead. They expect the body's types, which the forms do not enforce (a category
        # given as a number), hence inside the try.
        broken = list(check_listing(document, accepted=accepted, fixed=accepted is not None,
                                    today=today))
    except (AttributeError, KeyError, TypeError, ValueError):
        return {"non_field_errors": [MALFORMED]}
    found: dict[str, list[str]] = {}
    for error in broken:
        found.setdefault(error.path, []).append(error.message)
    for path in hours.ranges_past_midnight(document):
        # The editor splits such a range itself; a document is sent as it is given.
        found.setdefault(path, []).append(
            "A range cannot run past midnight in the provider's day entries: send it as two, "
            "up to 86400 on its day and from 0 on the next day.")
    if valid:
        return found
    for path, messages in editor.errors_by_path().items():
        known = found.setdefault(path, [])
        known.extend(message for message in messages if message not in known)
    for message in editor.messages:
        if not any(message in messages for messages in found.values()):
            found.setdefault("non_field_errors", []).append(message)
    return found

"""Forms of the bulk change pages: which locations, which parts of the listing, their values and
how the change is sent.

The values are entered with the listing editor's own forms (`listings.editor`), cut down to the
parts chosen: the same widgets, the same field checks, the same body built from them
(`ListingPart.value`). The provider's rules, which read across the whole listing, are checked
per location by the dry run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from django import forms
from django.forms.utils import ErrorDict

from bulk.models import BulkChange
from listings.editor import fields as editor_fields
from listings.editor import hours
from listings.editor import rows as r
from listings.editor.editor import ListingEditor, Section, listing_labels
from listings.editor.forms import SectionForm
from listings.editor.schema import MORE_HOURS_KINDS

BIGINT_MAX = 2**63 - 1
FILTER_PREFIX = "filter_"
# The businesses list's own paging is no part of a selection; its sort is (waves follow it).
NOT_FILTERS = {"page"}
HOURS_PATH = "additionalInfo.hoursOfOperations"
MORE_HOURS_PATHS = {f"additionalInfo.{kind}": kind for kind in MORE_HOURS_KINDS}


# -- the parts of the listing a bulk change can set ---------------------------------------------

@dataclass(frozen=True)
class Part:
    path: str  # "<section>.<field>" of the create-listing body
    label: str
    group: str  # the editor's section it is entered in
    is_list: bool  # replaced or appended to, as the change says


def _paths_of(form: SectionForm) -> list[str]:
    """The parts of the listing `form` enters; none for the address, which is one per
    location."""
    if isinstance(form, r.DayHoursForm):
        return [HOURS_PATH]
    if isinstance(form, r.MoreHoursForm):
        return list(MORE_HOURS_PATHS)
    if isinstance(form, r.RowsForm):
        return [form.path]
    if "." in form.path:
        return []
    return [f"{form.path}.{name}" for name in form.fields]


@functools.cache
def _parts() -> tuple[Part, ...]:
    labels = listing_labels()
    found: dict[str, Part] = {}
    for section in ListingEditor(document={}, accepted=None).sections:
        for form in section.forms:
            for path in _paths_of(form):
                if path in found:
                    continue
                field = form.fields.get(path.rsplit(".", 1)[1])
                is_list = isinstance(form, r.RowsForm) or isinstance(field,
                                                                     editor_fields.ListField)
                found[path] = Part(path, labels.get(path, path), section.title, is_list)
    return tuple(found.values())


def listing_parts() -> list[Part]:
    """Every part of the listing a bulk change can set, in the editor's order."""
    return list(_parts())


def part_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """The parts grouped by the editor's sections, for a choice field."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for part in _parts():
        groups.setdefault(part.group, []).append((part.path, part.label))
    return list(groups.items())


def part_labels(paths) -> list[str]:
    """The labels of some parts, in the editor's order."""
    chosen = set(paths)
    return [part.label for part in _parts() if part.path in chosen]


class ListingPart:
    """The listing editor's forms for the chosen parts only: a form entering nothing chosen is
    left out, and a form entering several fields keeps the chosen ones (so the rest is neither
    shown, checked nor set)."""

    def __init__(self, data=None, *, paths: list[str]):
        given = set(paths)
        self.paths = [part.path for part in _parts() if part.path in given]
        chosen = set(self.paths)
        editor = ListingEditor(data, document={}, accepted=None)
        self.sections: list[Section] = []
        for section in editor.sections:
            kept = []
            for form in section.forms:
                owned = [path for path in _paths_of(form) if path in chosen]
                if not owned:
                    continue
                if isinstance(form, r.MoreHoursForm):
                    kinds = [(MORE_HOURS_PATHS[path], MORE_HOURS_KINDS[MORE_HOURS_PATHS[path]])
                             for path in owned]
                    for name, field in form.fields.items():
                        if name.startswith("kind_"):
                            field.choices = kinds
                elif not isinstance(form, r.RowsForm):
                    for name in list(form.fields):
                        if f"{form.path}.{name}" not in chosen:
                            del form.fields[name]
                kept.append(form)
            if kept:
                self.sections.append(Section(section.key, section.title, section.description,
                                             kept))
        self.forms = [form for section in self.sections for form in section.forms]

    def is_valid(self) -> bool:
        valid = all([form.is_valid() for form in self.forms])
        days = [form for form in self.forms if isinstance(form, r.DayHoursForm)]
        for day, following in zip(days, days[1:] + days[:1], strict=True):
            day.check_next_day(following)
        return valid and not any(form.errors for form in self.forms)

    def hold(self) -> None:
        """Show what was typed without checking it (the parts were being chosen)."""
        for form in self.forms:
            form._errors = ErrorDict()  # Django checks a bound form when `errors` is None
            form.cleaned_data = {}

    def value(self) -> dict:
        """The chosen parts in the create-listing shape, from valid forms."""
        document: dict = {}
        for form in self.forms:
            form.contribute(document)
        info = document.get("additionalInfo") or {}
        if HOURS_PATH.split(".")[1] in info:  # the whole week is known only now
            info["hoursOfOperations"] = hours.split_overnight(info["hoursOfOperations"])
        value: dict[str, dict] = {}
        for path in self.paths:
            section, name = path.split(".")
            fields = document.get(section) or {}
            if name in fields:
                value.setdefault(section, {})[name] = fields[name]
        return value


# -- the selection -------------------------------------------------------------------------------

class SelectionError(ValueError):
    pass


def _number(text: str, what: str) -> int:
    try:
        number = int(text)
    except ValueError:  # also past Python's limit of digits
        number = 0
    if not 1 <= number <= BIGINT_MAX or not text.isascii():
        shown = text if len(text) <= 20 else f"{text[:20]}…"
        raise SelectionError(f"{shown!r} is not {what}.")
    return number


def selection_from(params: Mapping) -> dict | None:
    """The selection a query string (or a form) gives, as `bulk_change_create` takes it:

    - ``node=<business number>``: every location under that business;
    - ``numbers=1001,1002`` (or ``numbers`` repeated, as the businesses list's boxes send it;
      commas, spaces or new lines between them): those locations, in that order;
    - ``filter=all``, with the businesses list's filters, if any, named as in its own query
      string with ``filter_`` before each (``filter=all&filter_city=Austin``): the locations
      they match (every location the member sees, without any).

    None when it gives none; SelectionError when it is not readable."""
    getlist = params.getlist if hasattr(params, "getlist") else (
        lambda key: [params[key]] if key in params else [])
    node = [value for value in getlist("node") if str(value).strip()]
    if node:
        return {"node": _number(str(node[-1]).strip(), "a business number")}
    tokens = [token for value in getlist("numbers")
              for token in re.split(r"[\s,;]+", str(value)) if token]
    if tokens:
        wrong, numbers = [], []
        for token in tokens:
            try:
                numbers.append(_number(token, "a business number"))
            except SelectionError:
                wrong.append(token if len(token) <= 20 else f"{token[:20]}…")
        if wrong:
            more = f" and {len(wrong) - 5} more" if len(wrong) > 5 else ""
            raise SelectionError("Business numbers are whole numbers: "
                                 f"{', '.join(wrong[:5])}{more} are not.")
        return {"numbers": numbers}
    filters = {key[len(FILTER_PREFIX):]: str(getlist(key)[-1]) for key in params
               if key.startswith(FILTER_PREFIX) and key[len(FILTER_PREFIX):]
               and key[len(FILTER_PREFIX):] not in NOT_FILTERS and getlist(key)}
    if filters or getlist("filter"):
        return {"filter": filters}
    return None


def selection_fields(selection: dict) -> list[tuple[str, str]]:
    """The selection as (name, value) pairs of hidden inputs, read back by `selection_from`."""
    (kind, value), = selection.items()
    if kind == "node":
        return [("node", str(value))]
    if kind == "numbers":
        return [("numbers", ",".join(str(number) for number in value))]
    return [("filter", "all"),
            *((f"{FILTER_PREFIX}{name}", item) for name, item in value.items())]


# -- how it is sent ------------------------------------------------------------------------------

def _waves(text: str) -> list[int]:
    sizes = []
    for token in [token for token in re.split(r"[\s,;]+", text) if token]:
        if not (token.isascii() and token.isdigit()) or len(token) > 6 or int(token) < 1:
            raise forms.ValidationError(
                "Give the number of locations of each wave, whole numbers of 1 or more "
                "separated by commas, such as 5, 50.", code="waves")
        sizes.append(int(token))
    return sizes


class BulkChangeForm(forms.Form):
    """What to set and how to send it; the values are in `ListingPart`."""

    parts = forms.MultipleChoiceField(
        label="What to set", widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one part of the listing to set."})
    lists = forms.ChoiceField(
        label="Lists", choices=[
            (BulkChange.Lists.REPLACE, "Replace: each listing gets the items given here"),
            (BulkChange.Lists.APPEND, "Append: the items given here are added after each "
                                      "listing's own")],
        initial=BulkChange.Lists.REPLACE, widget=forms.RadioSelect,
        help_text="For the parts that are lists: hours, categories, attributes, links, "
                  "languages…")
    waves = forms.CharField(
        label="Waves", initial="5, 50", max_length=500,
        help_text="Locations per wave, in order; the last size repeats. 5, 50 sends to 5 "
                  "locations first, then 50 at a time once the wave before went well. Empty: "
                  "all at once.", required=False)
    wait_for_statuses = forms.BooleanField(
        label="After each wave, wait for the directories' statuses of its locations",
        required=False,
        help_text="The next wave starts once those statuses have been read again.")
    action_required_threshold = forms.IntegerField(
        label="New “Action Required” sites a wave may cause", min_value=0, max_value=100_000,
        initial=0, required=False,
        help_text="With the wait above: a wave leaving more of its sites needing action than "
                  "this pauses the change.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["parts"].choices = part_choices()

    def clean_waves(self) -> list[int]:
        return _waves(self.cleaned_data.get("waves") or "")

    def clean_action_required_threshold(self) -> int:
        return self.cleaned_data.get("action_required_threshold") or 0

    def chosen_parts(self) -> list[str]:
        """The parts ticked, whether or not the rest of the form is valid."""
        if self.is_bound:
            given = self.data.getlist("parts") if hasattr(self.data, "getlist") else []
        else:
            given = self.initial.get("parts") or []
        known = {part.path for part in _parts()}
        return [path for path in dict.fromkeys(given) if path in known]

    @property
    def lists_matter(self) -> bool:
        chosen = set(self.chosen_parts())
        return any(part.is_list for part in _parts() if part.path in chosen)

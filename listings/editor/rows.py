"""Row-based parts of the listing editor: opening hours, special hours, more hours, attributes
and maps action links.

A `RowsForm` has columns; row i of column c is the field ``c_i``. As many rows are built as the
submitted data holds (JavaScript may add rows; without it, one blank row is always offered), or,
unbound, the stored rows plus one blank. Rows left blank are ignored.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import Any

from django import forms

from listings.editor import fields, formats, hours
from listings.editor.forms import SectionForm, ensure_path, get_path
from listings.editor.schema import MORE_HOURS_KINDS, WEEKDAYS

MAX_ROWS = 100
Row = dict[str, Any]


class RowsForm(SectionForm):
    columns: dict[str, Callable[[], forms.Field]] = {}
    significant: tuple[str, ...] | None = None  # columns that make a row non-blank
    extra_rows = 1
    template_name_editor = "listings/editor_rows.html"
    add_label = "Add a row"

    def __init__(self, data=None, *, document: dict, **kwargs: Any):
        self.stored_rows = self.rows_from(document)
        super().__init__(data, document=document, **kwargs)

    def setup(self) -> None:
        count = self._bound_count() if self.is_bound else len(self.stored_rows) + self.extra_rows
        self.row_count = min(max(count, 1), MAX_ROWS)
        for index in range(self.row_count):
            stored = self.stored_rows[index] if index < len(self.stored_rows) else {}
            for column, make in self.columns.items():
                name = f"{column}_{index}"
                field = make()
                field.required = False
                field.widget.attrs["aria-label"] = self.row_label(field, index)
                self.fields[name] = field
                if column in stored:
                    self.initial[name] = stored[column]

    def row_label(self, field: forms.Field, index: int) -> str:
        return f"{field.label}, row {index + 1}"

    def _bound_count(self) -> int:
        pattern = re.compile(rf"^{re.escape(self.add_prefix(''))}"
                             rf"(?:{'|'.join(map(re.escape, self.columns))})_(\d+)$")
        indexes = [int(m[1]) for key in self.data if (m := pattern.match(key))]
        return max(indexes, default=-1) + 1

    # -- rendering --------------------------------------------------------------------
    def header(self) -> list[str]:
        return [self.columns[c]().label or c for c in self.columns]

    def rows(self) -> list[list[tuple[forms.BoundField, list[str]]]]:
        return [[(self[f"{c}_{i}"], [*self[f"{c}_{i}"].errors,
                                     *self.notices.get(f"{c}_{i}", [])])
                 for c in self.columns] for i in range(self.row_count)]

    def field_items(self):
        for name in self.fields:
            if not re.search(r"_\d+$", name):
                bound = self[name]
                yield bound, [*bound.errors, *self.notices.get(name, [])]

    # -- cleaning ---------------------------------------------------------------------
    def filled_rows(self) -> list[tuple[int, Row]]:
        rows = []
        for index in range(self.row_count):
            row = {c: self.cleaned_data.get(f"{c}_{index}") for c in self.columns}
            keys = self.significant or tuple(self.columns)
            if any(row[c] not in (None, "", False) for c in keys):
                rows.append((index, row))
        return rows

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.clean_rows(self.filled_rows())
        return cleaned

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        """Check the filled rows together; report with ``self.add_error(f"{column}_{i}", ...)``."""

    def require(self, rows: Iterable[tuple[int, Row]], *columns: str, message: str) -> None:
        for index, row in rows:
            for column in columns:
                if row[column] in (None, ""):
                    self.add_error(f"{column}_{index}", message)

    # -- the listing -----------------------------------------------------------------------
    def rows_from(self, document: dict) -> list[Row]:
        raise NotImplementedError

    def payload_from_rows(self, rows: list[Row]) -> Any:
        raise NotImplementedError

    def contribute(self, document: dict) -> None:
        section, _, key = self.path.rpartition(".")
        ensure_path(document, section)[key] = self.payload_from_rows(
            [row for _, row in self.filled_rows()])

    def field_paths(self) -> dict[str, str]:
        return {}

    def locate(self, path: str) -> str | None | bool:
        if path == self.path:
            return None
        match = re.match(rf"^{re.escape(self.path)}\[(\d+)\](?:\.(\w+))?", path)
        if match is None:
            return False
        index, key = int(match[1]), match[2]
        column = self.column_for_key.get(key or "", None)
        if column and index < self.row_count:
            return f"{column}_{index}"
        return None

    column_for_key: dict[str, str] = {}


# ---------------------------------------------------------------------------- hours
def _start() -> fields.HourField:
    return fields.HourField(label="Opens")


def _end() -> fields.HourField:
    return fields.HourField(end=True, label="Closes")


def check_ranges(form: RowsForm, rows: list[tuple[int, Row]], *,
                 overnight: bool = False) -> None:
    """Open rows need both times and must not overlap. A closing time earlier than the opening
    time runs past midnight where `overnight` (the hours of a weekday, see
    `listings.editor.hours`); elsewhere the start comes before the end."""
    good = []
    for index, row in rows:
        start, end = row["start"], row["end"]
        if start is None or end is None:
            form.add_error(f"{'start' if start is None else 'end'}_{index}",
                           "Give both the opening and the closing time.")
        elif start == end:
            form.add_error(f"end_{index}", "The closing time must differ from the opening time "
                                           "(00:00 to 00:00 is the whole day).")
        elif start > end and not overnight:
            form.add_error(f"end_{index}", "The closing time must be after the opening time: "
                                           "special hours cannot run past midnight. Give the "
                                           "rest in a row for the next date, from 00:00.")
        else:
            good.append((start, end if end > start else hours.DAY, index))
    for (_, earlier_end, _), (later_start, _, later) in pairwise(sorted(good)):
        if later_start < earlier_end:
            form.add_error(f"start_{later}", "This range overlaps another range of the day.")


def check_night_before(form: RowsForm, late: Row, day_name: str,
                       following: list[tuple[int, Row]]) -> None:
    """A range past midnight goes on into the next day: that day's own ranges (`following`)
    may only begin once it has ended."""
    if not hours.is_overnight(late["start"], late["end"]):
        return
    for index, row in following:
        if row["start"] is not None and row["start"] < late["end"]:
            until = formats.seconds_to_hour(late["end"])
            form.add_error(f"start_{index}", f"The hours of {day_name} run until {until} after "
                                             f"midnight: this range must begin at {until} or "
                                             "later.")


def check_closed(form: RowsForm, closed: bool, rows: list[tuple[int, Row]],
                 closed_field: str) -> bool:
    """A closed day has no hours. Returns whether the rows may be checked as open ranges."""
    with_hours = [(i, r) for i, r in rows if r["start"] is not None or r["end"] is not None]
    if closed and with_hours:
        form.add_error(closed_field, "A closed day has no opening hours: clear them or untick "
                                     "Closed.")
        return False
    return not closed


def day_entry(day: int, closed: bool, ranges: list[Row]) -> dict:
    if closed:
        # interface.md: a closed day carries isOpen 0 and empty strings.
        return {"day": day, "isOpen": 0, "workingHours": [{"startHour": "", "endHour": ""}]}
    return {"day": day, "isOpen": 1, "workingHours": [
        {"startHour": r["start"], "endHour": r["end"]}
        for r in sorted(ranges, key=lambda r: r["start"])]}


def rows_of_entry(entry: dict) -> tuple[bool, list[Row]]:
    closed = not entry.get("isOpen")
    if closed:
        return True, []
    return False, [{"start": formats.seconds_to_hour(r.get("startHour"), for_input=True),
                    "end": formats.seconds_to_hour(r.get("endHour"), for_input=True)}
                   for r in entry.get("workingHours") or []]


class DayHoursForm(RowsForm):
    """One weekday of additionalInfo.hoursOfOperations: closed, or one or more ranges."""

    path = "additionalInfo.hoursOfOperations"
    columns = {"start": _start, "end": _end}
    add_label = "Add hours"
    column_for_key = {"startHour": "start", "endHour": "end", "workingHours": "start"}
    template_name_editor = "listings/editor_day.html"

    closed = fields.BooleanField(label="Closed")

    def __init__(self, data=None, *, day: int, document: dict, **kwargs: Any):
        self.day = day
        self.legend = WEEKDAYS[day]
        super().__init__(data, document=document, **kwargs)

    def row_label(self, field: forms.Field, index: int) -> str:
        return f"{self.legend} {field.label.lower()} {index + 1}"

    def rows_from(self, document: dict) -> list[Row]:
        # Ranges past midnight read back joined (listings.editor.hours): 18:00–02:00 on this
        # day, not 18:00–24:00 here and 00:00–02:00 on the next.
        entries = hours.join_overnight(get_path(document, self.path) or [])
        found = next((entry for entry in entries if isinstance(entry, dict)
                      and entry.get("day") == self.day), None)
        closed, rows = rows_of_entry(found) if found else (False, [])
        self.initial_closed = closed
        return rows

    def setup(self) -> None:
        self.initial["closed"] = getattr(self, "initial_closed", False)
        super().setup()

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        if check_closed(self, bool(self.cleaned_data.get("closed")), rows, "closed"):
            check_ranges(self, rows, overnight=True)

    def check_next_day(self, following: DayHoursForm) -> None:
        """After both forms are clean: the next day's ranges begin once this day's range past
        midnight has ended (a closed next day has none)."""
        if not (self.is_bound and following.is_bound) or self.errors or following.errors:
            return
        if self.cleaned_data.get("closed"):
            return
        if following.cleaned_data.get("closed"):
            return
        for _, late in self.filled_rows():
            check_night_before(following, late, self.legend, following.filled_rows())

    def entry(self) -> dict | None:
        rows = [row for _, row in self.filled_rows()]
        if self.cleaned_data.get("closed"):
            return day_entry(self.day, True, [])
        return day_entry(self.day, False, rows) if rows else None

    def contribute(self, document: dict) -> None:
        """Adds this day's entry; ranges past midnight are split once the week is complete
        (`finish_hours`)."""
        entries = ensure_path(document, "additionalInfo").setdefault("hoursOfOperations", [])
        entry = self.entry()
        if entry is not None:
            entries.append(entry)

    def locate(self, path: str) -> str | None | bool:
        return False  # see locate_in: which day a path is about depends on the listing

    def locate_in(self, document: dict, path: str) -> str | None | bool:
        """A path into hoursOfOperations[k]: this form's when entry k is this day; a range of
        it, when that range is part of one of this form's rows (the part after midnight of a
        range past midnight is the row's closing time)."""
        match = re.match(rf"^{re.escape(self.path)}\[(\d+)\](?:\.workingHours\[(\d+)\])?"
                         rf"(?:\.(\w+))?", path)
        if match is None:
            return False
        entries = get_path(document, self.path) or []
        position = int(match[1])
        if match[2] is None:
            if position >= len(entries) or entries[position].get("day") != self.day:
                return False
            return "closed" if match[3] == "isOpen" else None
        source = (position, int(match[2]))
        for day in hours.join_days(entries) or []:
            for row, joined in enumerate(day.ranges):
                if source in joined.sources:
                    if day.entry["day"] != self.day:
                        return False
                    after_midnight = joined.sources.index(source) > 0
                    column = "end" if match[3] == "endHour" or after_midnight else "start"
                    return f"{column}_{row}"
        if position < len(entries) and entries[position].get("day") == self.day:
            return None
        return False


class SpecialHoursForm(RowsForm):
    """additionalInfo.specialHours: dates with other hours (holidays); one row per range."""

    path = "additionalInfo.specialHours"
    legend = "Special hours"
    intro = ("Holidays and other dates with different hours. A date open in two ranges takes "
             "two rows; a night past midnight takes a row for the next date, from 00:00.")
    columns = {
        "date": lambda: fields.DateField(label="Date"),
        "closed": lambda: fields.BooleanField(label="Closed"),
        "start": _start,
        "end": _end,
    }
    significant = ("date", "start", "end", "closed")
    column_for_key = {"specialDate": "date", "startHour": "start", "endHour": "end",
                      "isOpen": "closed"}
    add_label = "Add a date"

    def rows_from(self, document: dict) -> list[Row]:
        rows = []
        for entry in get_path(document, self.path) or []:
            rows.append({
                "date": formats.parse_date(entry.get("specialDate")),
                "closed": not entry.get("isOpen"),
                "start": formats.seconds_to_hour(entry.get("startHour"), for_input=True),
                "end": formats.seconds_to_hour(entry.get("endHour"), for_input=True),
            })
        return rows

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        self.require(rows, "date", message="Give the date.")
        by_date: dict[Any, list[tuple[int, Row]]] = defaultdict(list)
        for index, row in rows:
            if row["date"]:
                by_date[row["date"]].append((index, row))
        for same_day in by_date.values():
            closed = [(i, r) for i, r in same_day if r["closed"]]
            opened = [(i, r) for i, r in same_day if not r["closed"]]
            for index, row in closed:
                check_closed(self, True, [(index, row)], f"closed_{index}")
            if closed and opened:
                self.add_error(f"closed_{closed[0][0]}",
                               "This date also has opening hours in another row.")
            check_ranges(self, opened)

    def payload_from_rows(self, rows: list[Row]) -> list[dict]:
        entries = []
        for row in sorted(rows, key=lambda r: (r["date"], r["start"] or 0)):
            entry = {"specialDate": formats.format_date(row["date"]),
                     "isOpen": 0 if row["closed"] else 1}
            if row["closed"]:
                entry.update(startHour="", endHour="")
            else:
                entry.update(startHour=row["start"], endHour=row["end"])
            entries.append(entry)
        return entries


class MoreHoursForm(RowsForm):
    """additionalInfo.moreHours and mapsMoreHours: label (e.g. Delivery) -> day entries."""

    path = "additionalInfo.moreHours"
    legend = "More hours"
    intro = ("Hours of a part of the business, such as Delivery or Kitchen: one row per label, "
             "day and range. A closing time earlier than the opening time runs past midnight "
             "into the next day.")
    columns = {
        "kind": lambda: fields.ChoiceField(choices=list(MORE_HOURS_KINDS.items()),
                                           label="For"),
        "label": lambda: fields.TextField(label="Label", max_length=100),
        "day": lambda: fields.ChoiceField(
            choices=[("", "—"), *((str(d), name) for d, name in enumerate(WEEKDAYS))],
            label="Day"),
        "closed": lambda: fields.BooleanField(label="Closed"),
        "start": _start,
        "end": _end,
    }
    significant = ("label", "day", "closed", "start", "end")
    add_label = "Add more hours"

    def rows_from(self, document: dict) -> list[Row]:
        rows = []
        for kind in MORE_HOURS_KINDS:
            for label, entries in (get_path(document, f"additionalInfo.{kind}") or {}).items():
                for entry in hours.join_overnight(entries):
                    closed, ranges = rows_of_entry(entry)
                    base = {"kind": kind, "label": label, "day": str(entry.get("day"))}
                    if closed:
                        rows.append({**base, "closed": True})
                    for times in ranges:
                        rows.append({**base, **times})
        return rows

    def locate(self, path: str) -> str | None | bool:
        for kind in MORE_HOURS_KINDS:
            if path == f"additionalInfo.{kind}" or path.startswith(f"additionalInfo.{kind}."):
                return None
        return False

    def _groups(self, rows: list[tuple[int, Row]]) -> dict[tuple, list[tuple[int, Row]]]:
        groups: dict[tuple, list[tuple[int, Row]]] = defaultdict(list)
        for index, row in rows:
            if row["label"] and row["day"] not in (None, ""):
                groups[(row["kind"] or "moreHours", row["label"], int(row["day"]))].append(
                    (index, row))
        return groups

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        self.require(rows, "label", message="Give a label such as Delivery.")
        self.require(rows, "day", message="Choose the day.")
        groups = self._groups(rows)
        for group in groups.values():
            closed = [(i, r) for i, r in group if r["closed"]]
            opened = [(i, r) for i, r in group if not r["closed"]]
            for index, row in closed:
                check_closed(self, True, [(index, row)], f"closed_{index}")
            if closed and opened:
                self.add_error(f"closed_{closed[0][0]}",
                               "This day also has hours in another row with the same label.")
            check_ranges(self, opened, overnight=True)
        for (kind, label, day), group in groups.items():
            following = groups.get((kind, label, (day + 1) % len(WEEKDAYS)), [])
            if any(row["closed"] for _, row in following):
                continue
            for _, late in group:
                if not late["closed"]:
                    check_night_before(self, late, f"{label} on {WEEKDAYS[day]}",
                                       [(i, r) for i, r in following if not r["closed"]])

    def contribute(self, document: dict) -> None:
        info = ensure_path(document, "additionalInfo")
        result: dict[str, dict[str, list]] = {kind: {} for kind in MORE_HOURS_KINDS}
        for (kind, label, day), group in sorted(self._groups(self.filled_rows()).items(),
                                                key=lambda item: item[0]):
            rows = [row for _, row in group]
            closed = any(row["closed"] for row in rows)
            result[kind].setdefault(label, []).append(day_entry(day, closed, rows))
        info.update({kind: {label: hours.split_overnight(entries)
                            for label, entries in labels.items()}
                     for kind, labels in result.items()})


# -------------------------------------------------------------------------- attributes
class ProfileAttributesForm(RowsForm):
    """profileListing.attributes: group -> [{attributeId, attributeName, value}]."""

    path = "profileListing.attributes"
    legend = "Business-profile attributes"
    columns = {
        "group": lambda: fields.TextField(label="Group", max_length=100),
        "attributeId": lambda: fields.TextField(label="Attribute id", max_length=200),
        "attributeName": lambda: fields.TextField(label="Name", max_length=200),
        "value": lambda: fields.ChoiceField(choices=[("", "—"), ("yes", "Yes"), ("no", "No")],
                                            label="Value"),
    }
    add_label = "Add an attribute"

    def rows_from(self, document: dict) -> list[Row]:
        return [{"group": group, "attributeId": item.get("attributeId", ""),
                 "attributeName": item.get("attributeName", ""),
                 "value": "yes" if item.get("value") else "no"}
                for group, items in (get_path(document, self.path) or {}).items()
                for item in items]

    def locate(self, path: str) -> str | None | bool:
        return None if path == self.path or path.startswith(self.path + ".") else False

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        self.require(rows, "group", "attributeId", message="Required for an attribute.")
        self.require(rows, "value", message="Choose yes or no.")

    def payload_from_rows(self, rows: list[Row]) -> dict:
        result: dict[str, list] = {}
        for row in rows:
            item = {"attributeId": row["attributeId"], "value": row["value"] == "yes"}
            if row["attributeName"]:
                item["attributeName"] = row["attributeName"]
            result.setdefault(row["group"], []).append(item)
        return result


class MapsAttributesForm(RowsForm):
    """mapsListing.mapsLocationAttributes: group -> [{attributeId}]."""

    path = "mapsListing.mapsLocationAttributes"
    legend = "Maps attributes"
    columns = {
        "group": lambda: fields.TextField(label="Group", max_length=100),
        "attributeId": lambda: fields.TextField(label="Attribute id", max_length=200),
    }
    add_label = "Add an attribute"

    def rows_from(self, document: dict) -> list[Row]:
        return [{"group": group, "attributeId": item.get("attributeId", "")}
                for group, items in (get_path(document, self.path) or {}).items()
                for item in items]

    def locate(self, path: str) -> str | None | bool:
        return None if path == self.path or path.startswith(self.path + ".") else False

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        self.require(rows, "group", "attributeId", message="Required for an attribute.")

    def payload_from_rows(self, rows: list[Row]) -> dict:
        result: dict[str, list] = {}
        for row in rows:
            result.setdefault(row["group"], []).append({"attributeId": row["attributeId"]})
        return result


class MapsActionLinksForm(RowsForm):
    """mapsListing.mapsActionLinks: [{id, deepLinkUrl, appStoreUrl}]."""

    path = "mapsListing.mapsActionLinks"
    legend = "Maps action links"
    columns = {
        "id": lambda: fields.TextField(label="Action", max_length=100),
        "deepLinkUrl": lambda: fields.URLField(label="Link"),
        "appStoreUrl": lambda: fields.URLField(label="App store link"),
    }
    column_for_key = {"id": "id", "deepLinkUrl": "deepLinkUrl", "appStoreUrl": "appStoreUrl"}
    add_label = "Add an action link"

    def rows_from(self, document: dict) -> list[Row]:
        return [{"id": item.get("id", ""), "deepLinkUrl": item.get("deepLinkUrl", ""),
                 "appStoreUrl": item.get("appStoreUrl", "")}
                for item in get_path(document, self.path) or []]

    def clean_rows(self, rows: list[tuple[int, Row]]) -> None:
        self.require(rows, "id", "deepLinkUrl", message="Required for an action link.")

    def payload_from_rows(self, rows: list[Row]) -> list[dict]:
        return [{"id": row["id"], "deepLinkUrl": row["deepLinkUrl"],
                 **({"appStoreUrl": row["appStoreUrl"]} if row["appStoreUrl"] else {})}
                for row in rows]

"""Listings as files: one row per location, one column per field of the listing, in CSV or Excel
(XLSX), and the same files read back.

The first two columns, `business_number` and `business_name`, say which location a row is; each
other column's header is a field's dotted path in the create-listing body
(`additionalInfo.hoursOfOperations`), so that a file maps back to the listing exactly. A cell
holds its field in a format a person edits in a spreadsheet (`KINDS`): text as it is, yes/no,
lists separated by semicolons, opening hours as "Mon 09:00-17:00; Sun closed", and JSON for the
structured fields the editor shows as rows (attributes, action links). Export then import gives
every value back exactly: where the readable format cannot carry a value as it is (a shape the
provider accepted that the editor would not write), the cell holds the value as JSON, which is
read back as it is. docs/listing-files.md is written from the same table (`columns_markdown`).
"""

from __future__ import annotations

import csv
import datetime
import functools
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.models import Business, Membership, Reseller, User
from accounts.services import audit_record
from bulk.services import MAX_LOCATIONS, bulk_change_locations
from listings.editor import fields as editor_fields
from listings.editor import formats, hours
from listings.editor.editor import ListingEditor, listing_labels
from listings.editor.rows import RowsForm, day_entry
from listings.editor.schema import WEEKDAYS
from listings.editor.selectors import (
    listing_document_from_business,
    listing_versions_last_accepted,
)

BUSINESS_NUMBER = "business_number"
BUSINESS_NAME = "business_name"
# A cell holding this empties its field; an empty cell leaves the field as it is.
CLEAR = "(clear)"
# Locations whose last accepted versions are read in one query while exporting.
EXPORT_BATCH = 1_000
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
XLSX_SHEET = "Listings"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# A spreadsheet opening a CSV runs a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
DAY_NAMES = tuple(name[:3] for name in WEEKDAYS)
_DAYS = {**{name.lower(): day for day, name in enumerate(WEEKDAYS)},
         **{name.lower(): day for day, name in enumerate(DAY_NAMES)}}
_RANGE_RE = re.compile(r"(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})(?:\s*\(next day\))?")
_DAY_RE = re.compile(r"([A-Za-z]+)\.?:?\s+(.+)")
_SPECIAL_RE = re.compile(r"(\d{1,2}/\d{1,2}/\d{4}):?\s+(.+)")
# Characters an XLSX cell cannot hold (XML 1.0 refuses them); a CSV keeps them.
_NOT_IN_XLSX = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def max_bytes() -> int:
    """The largest file an import takes (the LISTING_IMPORT_MAX_BYTES setting, 5 MB)."""
    return int(getattr(settings, "LISTING_IMPORT_MAX_BYTES", DEFAULT_MAX_BYTES))


class CellError(ValueError):
    """A cell that cannot be read in its column's format; the message says how to write it."""


# -- the formats of the cells --------------------------------------------------------------------

@dataclass(frozen=True)
class Kind:
    """How one kind of field is written in a cell and read back."""

    name: str
    describe: str
    example: str
    write: Callable[[Any], str]
    read: Callable[[str], Any]
    empty: Any = ""

    def cell(self, value: Any) -> str:
        """The value in this format, or as JSON when the format would not give it back."""
        if value is None or value == self.empty:
            return ""
        try:
            text = self.write(value)
            if self.read(text) == value:
                return text
        except (AttributeError, CellError, KeyError, TypeError, ValueError):
            pass
        return _json(value)


def _json(value: Any) -> str:
    if value in (None, "", [], {}):
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _loads(text: str, kind: type, example: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise CellError(f"Not valid JSON ({error.msg} at character {error.pos + 1}): write it "
                        f"as {example}") from None
    if not isinstance(value, kind):
        raise CellError(f"Write a JSON {'object' if kind is dict else 'list'}, such as "
                        f"{example}")
    return value


def _text_write(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return str(value)
    return _json(value)


YES = {"yes", "y", "true", "1"}
NO = {"no", "n", "false", "0"}


def _yes_no(text: str) -> bool:
    word = text.strip().lower()
    if word in YES:
        return True
    if word in NO:
        return False
    raise CellError("Write yes or no.")


def _list_write(value: list) -> str:
    if not all(isinstance(item, str) for item in value):
        raise TypeError
    return "; ".join(value)


def _list_read(text: str) -> list:
    text = text.strip()
    if text.startswith("["):
        return _loads(text, list, '["Cash", "Credit Card"]')
    return [item.strip() for item in text.split(";") if item.strip()]


def _areas_write(value: list) -> str:
    if not all(isinstance(item, dict) and set(item) == {"description"} for item in value):
        raise TypeError
    return _list_write([item["description"] for item in value])


def _areas_read(text: str) -> list:
    if text.strip().startswith("["):
        return _loads(text.strip(), list, '[{"description": "Austin"}]')
    return [{"description": item} for item in _list_read(text)]


def _hour(seconds: Any) -> str:
    text = formats.seconds_to_hour(seconds)
    if not text:
        raise TypeError
    return text


def _ranges(text: str, *, where: str) -> list[tuple[int, int]]:
    ranges = []
    for part in text.split(","):
        match = _RANGE_RE.fullmatch(part.strip())
        if match is None:
            raise CellError(f"{where}: “{part.strip()}” is not a range of hours: write it as "
                            "09:00-17:00 (24-hour clock), several separated by commas, or "
                            "closed.")
        try:
            ranges.append((formats.hour_to_seconds(match[1]),
                           formats.hour_to_seconds(match[2], end=True)))
        except ValueError:
            raise CellError(f"{where}: “{part.strip()}” is not a time of day: hours go from "
                            "00:00 to 24:00.") from None
    return ranges


def _week_write(entries: list) -> str:
    joined = hours.join_days(entries)
    if joined is None:
        raise TypeError
    parts = []
    for day in joined:
        name = DAY_NAMES[day.entry["day"]]
        if day.closed:
            parts.append(f"{name} closed")
        else:
            parts.append(f"{name} " + ", ".join(f"{_hour(r.start)}-{_hour(r.end)}"
                                                for r in day.ranges))
    return "; ".join(parts)


def _week_read(text: str) -> list:
    text = text.strip()
    if text.startswith("["):
        return _loads(text, list, '[{"day": 0, "isOpen": 1, "workingHours": '
                                  '[{"startHour": 32400, "endHour": 61200}]}]')
    entries, seen = [], set()
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        match = _DAY_RE.fullmatch(part)
        day = _DAYS.get(match[1].lower()) if match else None
        if day is None:
            raise CellError(f"“{part}” does not start with a day: write Mon 09:00-17:00; "
                            "Tue 09:00-12:00, 13:00-17:00; Sun closed.")
        if day in seen:
            raise CellError(f"{WEEKDAYS[day]} is given twice.")
        seen.add(day)
        rest = re.sub(r"\s+after\s+\d{1,2}:\d{2}$", "", match[2].strip())
        if rest.lower() == "closed":
            entries.append(day_entry(day, True, []))
        else:
            entries.append(day_entry(day, False, [
                {"start": start, "end": end}
                for start, end in _ranges(rest, where=WEEKDAYS[day])]))
    # A range whose end comes before its start runs past midnight, as in the editor: it is
    # sent as two, up to midnight and from midnight on the next day.
    return hours.split_overnight(entries)


def _special_write(entries: list) -> str:
    parts = []
    for entry in entries:
        date = entry["specialDate"]
        if not isinstance(date, str):
            raise TypeError
        if entry.get("isOpen"):
            parts.append(f"{date} {_hour(entry['startHour'])}-{_hour(entry['endHour'])}")
        else:
            parts.append(f"{date} closed")
    return "; ".join(parts)


def _special_read(text: str) -> list:
    text = text.strip()
    if text.startswith("["):
        return _loads(text, list, '[{"specialDate": "12/25/2026", "isOpen": 0, '
                                  '"startHour": "", "endHour": ""}]')
    entries = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        match = _SPECIAL_RE.fullmatch(part)
        if match is None or formats.parse_date(match[1]) is None:
            raise CellError(f"“{part}” does not start with a date: write 12/24/2026 "
                            "09:00-13:00; 12/25/2026 closed (MM/DD/YYYY).")
        date, rest = match[1], match[2].strip()
        if rest.lower() == "closed":
            entries.append({"specialDate": date, "isOpen": 0, "startHour": "", "endHour": ""})
            continue
        entries += [{"specialDate": date, "isOpen": 1, "startHour": start, "endHour": end}
                    for start, end in _ranges(rest, where=date)]
    return entries


def _more_write(value: dict) -> str:
    parts = []
    for label, entries in value.items():
        if not isinstance(label, str) or not label.strip() or any(c in label for c in ":|"):
            raise TypeError
        parts.append(f"{label}: {_week_write(entries)}")
    return " | ".join(parts)


def _more_read(text: str) -> dict:
    text = text.strip()
    if text.startswith("{"):
        return _loads(text, dict, '{"Delivery": [{"day": 0, "isOpen": 1, "workingHours": '
                                  '[{"startHour": 39600, "endHour": 79200}]}]}')
    result: dict[str, list] = {}
    for part in (p.strip() for p in text.split("|")):
        if not part:
            continue
        label, colon, week = part.partition(":")
        label = label.strip()
        if not colon or not label or _DAYS.get(label.lower()) is not None:
            raise CellError(f"“{part}” has no label: write Delivery: Mon 11:00-22:00; Sun "
                            "closed | Kitchen: Mon 12:00-14:00.")
        if label in result:
            raise CellError(f"The label {label} is given twice.")
        try:
            result[label] = _week_read(week)
        except CellError as error:
            raise CellError(f"{label}: {error}") from None
    return result


def _json_kind(container: type, example: str) -> tuple[Callable, Callable]:
    return _json, lambda text: _loads(text.strip(), container, example)


TEXT = Kind("text", "The text as it is.", "Fresh bread every morning.", _text_write,
            lambda text: text.strip())
DATE = Kind("date", "A date, MM/DD/YYYY (a date typed in Excel is read as one).", "03/01/2027",
            _text_write, lambda text: text.strip())
YES_NO = Kind("yes/no", "yes or no (also true/false, 1/0).", "yes",
              lambda value: "yes" if value else "no", _yes_no, empty=None)
FLAG = Kind("yes/no", "yes or no (also true/false, 1/0).", "no",
            lambda value: "yes" if value else "no", lambda text: int(_yes_no(text)), empty=None)
LIST = Kind("list", "The items separated by semicolons; a list whose items hold a semicolon is "
                    "written as JSON.", "Cash; Credit Card", _list_write, _list_read, empty=[])
SERVICE_AREAS = Kind("list", LIST.describe, "Austin; Round Rock",
                     _areas_write, _areas_read, empty=[])
WEEK = Kind("opening hours",
            "Each day (Mon to Sun) with its ranges, days separated by semicolons, ranges by "
            "commas; closed for a closed day; a day left out is not sent. A closing time "
            "earlier than the opening time runs past midnight, as in the listing editor.",
            "Mon 09:00-17:00; Tue 09:00-12:00, 13:00-17:00; Fri 18:00-02:00; Sun closed",
            _week_write, _week_read, empty=[])
SPECIAL = Kind("special hours",
               "Each date (MM/DD/YYYY) with its ranges or closed, separated by semicolons.",
               "12/24/2026 09:00-13:00; 12/25/2026 closed", _special_write, _special_read,
               empty=[])
MORE_HOURS = Kind("labelled hours",
                  "Each label, a colon and its hours written as opening hours; labels "
                  "separated by a vertical bar.",
                  "Delivery: Mon 11:00-22:00; Sun closed | Kitchen: Mon 12:00-14:00",
                  _more_write, _more_read, empty={})
ATTRIBUTES = Kind("JSON attributes", "JSON, as the create-listing body holds it: group -> list of "
                          '{"attributeId", "attributeName", "value"}.',
                  '{"Amenities": [{"attributeId": "wifi", "value": true}]}',
                  *_json_kind(dict, '{"Amenities": [{"attributeId": "wifi", "value": true}]}'),
                  empty={})
MAPS_ATTRIBUTES = Kind("JSON maps attributes", 'JSON: group -> list of {"attributeId"}.',
                       '{"Accessibility": [{"attributeId": "ramp"}]}',
                       *_json_kind(dict, '{"Accessibility": [{"attributeId": "ramp"}]}'),
                       empty={})
ACTION_LINKS = Kind("JSON action links", 'JSON: a list of {"id", "deepLinkUrl", "appStoreUrl"}.',
                    '[{"id": "order", "deepLinkUrl": "https://example.com/order"}]',
                    *_json_kind(list, '[{"id": "order", "deepLinkUrl": '
                                      '"https://example.com/order"}]'),
                    empty=[])
KINDS = (TEXT, DATE, YES_NO, FLAG, LIST, SERVICE_AREAS, WEEK, SPECIAL, MORE_HOURS, ATTRIBUTES,
         MAPS_ATTRIBUTES, ACTION_LINKS)

# The editor's row-based parts, which no form field describes.
ROW_KINDS = {
    "additionalInfo.hoursOfOperations": WEEK,
    "additionalInfo.specialHours": SPECIAL,
    "additionalInfo.moreHours": MORE_HOURS,
    "additionalInfo.mapsMoreHours": MORE_HOURS,
    "profileListing.attributes": ATTRIBUTES,
    "mapsListing.mapsLocationAttributes": MAPS_ATTRIBUTES,
    "mapsListing.mapsActionLinks": ACTION_LINKS,
}


def _kind_of_field(field: Any) -> Kind:
    # Subclasses before their bases.
    for field_class, kind in ((editor_fields.ServiceAreasField, SERVICE_AREAS),
                              (editor_fields.ListField, LIST),
                              (editor_fields.FlagField, FLAG),
                              (editor_fields.BooleanField, YES_NO),
                              (editor_fields.DateField, DATE)):
        if isinstance(field, field_class):
            return kind
    return TEXT


# -- the columns ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Column:
    """One field of the listing as a column: `path` is its header."""

    path: str
    label: str
    kind: Kind
    note: str = ""

    @property
    def section(self) -> str:
        return self.path.split(".")[0]

    @property
    def name(self) -> str:
        return self.path.split(".")[1]

    @property
    def address_line(self) -> str:
        """The line of the address (`city`) for businessInfo.location.<line>, else ""."""
        parts = self.path.split(".")
        return parts[2] if len(parts) > 2 else ""

    def value_of(self, document: dict | None) -> Any:
        fields = (document or {}).get(self.section)
        value = fields.get(self.name) if isinstance(fields, dict) else None
        if self.address_line:
            value = value.get(self.address_line) if isinstance(value, dict) else None
        return value

    def cell(self, document: dict | None) -> str:
        return self.kind.cell(self.value_of(document))


@functools.cache
def _columns() -> tuple[Column, ...]:
    kinds: dict[str, Kind] = dict(ROW_KINDS)
    notes: dict[str, str] = {}
    for form in ListingEditor(document={}, accepted=None).forms:
        if isinstance(form, RowsForm):
            continue
        for path, name in form.field_paths().items():
            kinds.setdefault(path, _kind_of_field(form.fields[name]))
            notes.setdefault(path, str(form.fields[name].help_text or ""))
    return tuple(Column(path, label, kinds.get(path, TEXT), notes.get(path, ""))
                 for path, label in listing_labels().items())


def listing_columns() -> tuple[Column, ...]:
    """Every field of the listing as a column, in the listing editor's order."""
    return _columns()


def column_by_path() -> dict[str, Column]:
    return {column.path: column for column in _columns()}


def header() -> list[str]:
    return [BUSINESS_NUMBER, BUSINESS_NAME, *(column.path for column in _columns())]


def _doc_cell(text: str) -> str:
    return text.replace("|", "\\|")


def columns_markdown() -> str:
    """The table of the columns in docs/listing-files.md: each with its label, format and the
    listing editor's note on it."""
    lines = ["| Column | Field | Format | Notes |", "|---|---|---|---|",
             f"| `{BUSINESS_NUMBER}` | The location's business number | number | Required: "
             "which location the row is. |",
             f"| `{BUSINESS_NAME}` | The location's name | text | Shown for people; an import "
             "does not read it. |"]
    for column in _columns():
        lines.append(f"| `{column.path}` | {_doc_cell(column.label)} | {column.kind.name} | "
                     f"{_doc_cell(column.note)} |")
    return "\n".join(lines) + "\n"


def formats_markdown() -> str:
    """The table of the cell formats in docs/listing-files.md."""
    lines = ["| Format | How to write it | Example |", "|---|---|---|"]
    seen = set()
    for kind in KINDS:
        if (kind.name, kind.describe) in seen:
            continue
        seen.add((kind.name, kind.describe))
        lines.append(f"| {kind.name} | {_doc_cell(kind.describe)} | "
                     f"`{_doc_cell(kind.example)}` |")
    return "\n".join(lines) + "\n"


# -- export --------------------------------------------------------------------------------------

def listing_rows(*, tenant: Reseller, locations: list[Business]) -> Iterator[list[str]]:
    """The file's rows after its header, one per location: its last accepted listing, or the
    listing its business row tells before the first one (as the dry run measures against).
    One query per EXPORT_BATCH locations."""
    columns = _columns()
    for start in range(0, len(locations), EXPORT_BATCH):
        batch = locations[start:start + EXPORT_BATCH]
        accepted = listing_versions_last_accepted(
            tenant=tenant, business_ids=[location.pk for location in batch])
        for location in batch:
            version = accepted.get(location.pk)
            document = version.document if version else listing_document_from_business(location)
            yield [str(location.remote_id), location.name,
                   *(column.cell(document) for column in columns)]


def csv_safe(text: str) -> str:
    """A cell a spreadsheet will not run as a formula; reading the file takes the quote off
    again (`_csv_unquote`)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _csv_unquote(text: str) -> str:
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_STARTS) else text


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_lines(rows: Iterable[list[str]]) -> Iterator[bytes]:
    """The CSV file, line by line: UTF-8 with a byte-order mark, which Excel needs to read it as
    UTF-8."""
    writer = csv.writer(_Echo())
    yield "\ufeff".encode() + writer.writerow(header()).encode()
    for row in rows:
        yield writer.writerow([csv_safe(cell) for cell in row]).encode()


def xlsx_bytes(rows: Iterable[list[str]]) -> bytes:
    """The Excel workbook: one sheet, every cell text (a number-like postal code keeps its
    zeros, a phone starting with + is not a formula), the header row frozen."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(XLSX_SHEET)
    sheet.freeze_panes = "C2"
    for index, width in enumerate([18, 30, *([24] * len(_columns()))]):
        sheet.column_dimensions[_column_letter(index)].width = width
    bold = Font(bold=True)

    def text(value: str, font=None) -> Any:
        value = _NOT_IN_XLSX.sub("", value)
        if font is None and not value.startswith("="):
            return value  # a string stays text; only "=..." would be taken for a formula
        cell = WriteOnlyCell(sheet, value=value)
        cell.data_type = "s"
        if font is not None:
            cell.font = font
        return cell

    sheet.append([text(name, bold) for name in header()])
    for values in rows:
        sheet.append([text(value) for value in values])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def _column_letter(index: int) -> str:
    from openpyxl.utils import get_column_letter

    return get_column_letter(index + 1)


@dataclass
class ExportFile:
    name: str
    content_type: str
    rows: Iterator[list[str]]
    format: str

    def lines(self) -> Iterator[bytes]:
        """The file in parts, to stream (CSV line by line; a workbook is built whole)."""
        if self.format == "csv":
            yield from csv_lines(self.rows)
        else:
            yield xlsx_bytes(self.rows)

    def content(self) -> bytes:
        return b"".join(self.lines())


EXPORT_FORMATS = {"csv": "CSV", "xlsx": "Excel (XLSX)"}
# Parameters of the businesses list's address that choose nothing.
NOT_FILTERS = ("format", "page")


def _filter_errors(error: ValidationError, params: dict[str, str]) -> ValidationError:
    """The selection's errors named after the query's parameters (`city`, not
    `businesses.filter.city`); a filter that matches nothing names every filter given."""
    fields: dict[str, list[str]] = {}
    for name, messages in error.message_dict.items():
        if name.startswith("businesses.filter."):
            fields[name.removeprefix("businesses.filter.")] = messages
        else:
            given = [param for param, value in params.items() if value]
            for param in given or ["non_field_errors"]:
                fields.setdefault(param, []).extend(messages)
    return ValidationError(fields)


def listing_export(*, tenant: Reseller, actor: User | None, membership: Membership | None,
                   params: dict[str, str], format: str) -> ExportFile:
    """The listings of the locations the businesses list's filters choose (`params`, as its
    query string gives them), among those the member may see, as a CSV or XLSX file. Raises
    ValidationError naming the parameter at fault: an unknown filter or format, a filter that
    matches no location, more locations than one import takes."""
    if format not in EXPORT_FORMATS:
        raise ValidationError({"format": ['Give "csv" or "xlsx".']})
    params = {name: value for name, value in params.items() if name not in NOT_FILTERS}
    try:
        locations = bulk_change_locations(tenant=tenant, membership=membership,
                                          businesses={"filter": params})
    except ValidationError as error:
        raise _filter_errors(error, params) from None
    audit_record(tenant=tenant, actor=actor, action="listings.exported",
                 summary={"format": format, "locations": len(locations),
                          "filters": {name: value[:200] for name, value in params.items()
                                      if value}})
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
    content_type = CSV_CONTENT_TYPE if format == "csv" else XLSX_CONTENT_TYPE
    return ExportFile(name=f"listings-{tenant.slug}-{stamp}.{format}",
                      content_type=content_type, format=format,
                      rows=listing_rows(tenant=tenant, locations=locations))


# -- reading a file ------------------------------------------------------------------------------

@dataclass
class Table:
    """A file as read: its format, its header and its rows (each with its row number in the
    file, the header being row 1); rows with no cell filled are left out."""

    format: str
    header: list[str]
    rows: list[tuple[int, list[str]]]


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    return f"{max(1, round(count / 1024))} KB"


def _file_error(message: str) -> ValidationError:
    return ValidationError({"file": [message]})


NOT_A_TABLE = ("This is not a CSV or Excel (XLSX) file: export the listings first and import "
               "the file you edited, saved as CSV UTF-8 or Excel Workbook (.xlsx).")


def read_table(data: bytes) -> Table:
    """The rows of a CSV or XLSX file, told apart by their content (a workbook is a ZIP
    archive; a CSV is text). Raises ValidationError naming `file` when it is neither, too
    big, empty, or longer than one bulk change takes."""
    if len(data) > max_bytes():
        raise _file_error(f"The file is {_size(len(data))}: at most {_size(max_bytes())}. "
                          "Split it, or leave out the columns you do not change.")
    if not data.strip():
        raise _file_error("The file is empty.")
    if data.startswith(b"PK\x03\x04"):
        table = _read_xlsx(data)
    elif data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        raise _file_error("This is an older Excel file (.xls): save it as Excel Workbook "
                          "(.xlsx) or as CSV UTF-8, and import that.")
    else:
        table = _read_csv(data)
    if not any(table.header):
        raise _file_error("The first row must name the columns (business_number and the "
                          "fields), as an exported file does.")
    if len(table.rows) > MAX_LOCATIONS:
        raise _file_error(f"The file has {len(table.rows):,} rows: at most {MAX_LOCATIONS:,} "
                          "locations in one bulk change. Split it.")
    return table


def _decode(data: bytes) -> str:
    if b"\x00" in data:
        raise _file_error(NOT_A_TABLE)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Excel's plain "CSV" is saved in the Windows code page of Western Europe and America.
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise _file_error("The file is not UTF-8 text: save it as CSV UTF-8.") from None
    if re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text):
        raise _file_error(NOT_A_TABLE)
    return text


def _trim(head: list[str], rows: list[tuple[int, list[str]]]) -> list[str]:
    """The header without its last columns that have no name and hold nothing (a sheet's last
    columns often hold nothing but formatting)."""
    head = list(head)
    while head and not head[-1] and all(len(cells) < len(head) or not cells[len(head) - 1].strip()
                                        for _, cells in rows):
        head.pop()
    return head


def _read_csv(data: bytes) -> Table:
    text = _decode(data)
    first = text.split("\n", 1)[0]
    # Spreadsheets in some languages separate cells with semicolons or tabs.
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[int, list[str]]] = []
    head: list[str] | None = None
    line = 0
    try:
        # Rows are counted as a spreadsheet shows them, not by lines of text: a cell may hold
        # several lines.
        for line, cells in enumerate(reader, start=1):
            if head is None:
                head = [cell.strip() for cell in cells]
            elif any(cell.strip() for cell in cells):
                rows.append((line, [_csv_unquote(cell) for cell in cells]))
                if len(rows) > MAX_LOCATIONS:
                    break
    except csv.Error as error:
        raise _file_error(f"Row {line + 1} cannot be read as CSV: {error}.") from None
    return Table(format="csv", header=_trim(head or [], rows), rows=rows)


def _xlsx_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.datetime | datetime.date):
        return formats.format_date(value)
    if isinstance(value, datetime.time):
        return value.strftime("%H:%M")
    return str(value)


def _read_xlsx(data: bytes) -> Table:
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # noqa: BLE001 - a ZIP that is no workbook fails in many ways
        raise _file_error(NOT_A_TABLE) from None
    try:
        sheet = workbook.worksheets[0]
        rows: list[tuple[int, list[str]]] = []
        head: list[str] | None = None
        for line, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            cells = [_xlsx_text(value) for value in values]
            if head is None:
                head = [cell.strip() for cell in cells]
                continue
            if any(cell.strip() for cell in cells):
                rows.append((line, cells))
                if len(rows) > MAX_LOCATIONS:
                    break
    except Exception:  # noqa: BLE001 - a damaged sheet
        raise _file_error("The workbook's first sheet cannot be read: save it again as Excel "
                          "Workbook (.xlsx).") from None
    finally:
        workbook.close()
    return Table(format="xlsx", header=_trim(head or [], rows), rows=rows)


def same_cell(text: str, other: str) -> bool:
    """Whether two cells say the same, whatever a spreadsheet did to them on the way (line
    ends, characters an XLSX cell cannot hold, spaces at the ends)."""
    def normal(value: str) -> str:
        return _NOT_IN_XLSX.sub("", value.replace("\r\n", "\n")).strip()
    return normal(text) == normal(other)

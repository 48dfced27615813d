"""Imports of listings files: a file read row by row into a preview, then made a bulk change.

`listing_import_create` reads the file (`bulk.files`), maps its columns to the listing's
fields, finds each row's location among those the member may see, and turns each row into that
location's own part of the listing to set; the preview of every row is the bulk change's own dry
run (`bulk.services._dry_run_items`), computed and kept on the rows without storing a bulk
change. `listing_import_apply` makes the bulk change (`bulk.services.bulk_change_store`, source
"file"), whose dry run, waves and rollback are those of any bulk change.

A row sets the cells it fills; an empty cell leaves its field as it is, and `(clear)` empties
it. A cell that says what the listing already holds sets nothing: the bulk change then changes,
checks and can take back only what the file changes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone

from accounts.models import Business, Membership, Reseller, User
from accounts.selectors import business_list
from accounts.services import audit_record
from bulk.files import (
    BUSINESS_NAME,
    BUSINESS_NUMBER,
    CLEAR,
    CellError,
    Column,
    column_by_path,
    listing_columns,
    read_table,
    same_cell,
)
from bulk.models import BulkChange, ListingImport, ListingImportRow
from bulk.sending import bulk_change_apply
from bulk.services import (
    ITEM_BATCH,
    LOCATION_FIELDS,
    _clean_health,
    _clean_waves,
    _dry_run_items,
    bulk_change_store,
)
from listings.editor.selectors import (
    listing_document_from_business,
    listing_versions_last_accepted,
)

Row = ListingImportRow.State
IDENTITY = (BUSINESS_NUMBER, BUSINESS_NAME)
# Rows named in one message at most.
ROWS_NAMED = 20


# -- reads ---------------------------------------------------------------------------------------

def listing_import_list(*, tenant: Reseller,
                        membership: Membership | None = None) -> QuerySet[ListingImport]:
    """The imports the member may see: a member limited to part of the tree sees those made
    within it, never one made over the whole account."""
    queryset = ListingImport.objects.filter(reseller=tenant).select_related("created_by")
    if membership is not None and membership.limited_to_id is not None:
        limit = membership.limited_to
        queryset = queryset.filter(Q(scope=limit)
                                   | Q(scope__tree_path__startswith=limit.tree_path))
    return queryset.order_by("-created_at", "-id")


def listing_import_get(*, tenant: Reseller, membership: Membership | None,
                       pk: int) -> ListingImport:
    found = listing_import_list(tenant=tenant, membership=membership).filter(pk=pk).first()
    if found is None:
        raise Http404("No such import.")
    return found


def listing_import_row_list(*, tenant: Reseller, listing_import: ListingImport,
                            state: str | None = None) -> QuerySet[ListingImportRow]:
    rows = ListingImportRow.objects.filter(reseller=tenant, listing_import=listing_import)
    if state:
        rows = rows.filter(state=state)
    return rows.order_by("line")


# -- the columns ---------------------------------------------------------------------------------

def _target_names() -> dict[str, str]:
    """What a column may fill, by the names a header may give it: the field's dotted path
    (any case) or its label as the editor shows it."""
    names = {name: name for name in IDENTITY}
    for column in listing_columns():
        names[column.path.lower()] = column.path
        names.setdefault(column.label.lower(), column.path)
    return names


TARGET_HELP = ('give business_number, business_name, a field\'s dotted path such as '
               'businessInfo.websiteUrl (docs/listing-files.md lists them), or "" to leave the '
               'column out')


def _column_name(header: str, index: int) -> str:
    return header or f"column {index + 1}"


def blank_columns(header: list[str], rows: list[tuple[int, list[str]]]) -> set[str]:
    """Columns with neither a name nor a filled cell: left out without asking."""
    return {_column_name(text, index) for index, text in enumerate(header)
            if not text and not any(index < len(cells) and cells[index].strip()
                                    for _, cells in rows)}


def listing_import_mapping(*, header: list[str], mapping: Any = None,
                           blank: set[str] | frozenset = frozenset()) -> dict[str, str]:
    """What each column of the file fills: its header -> business_number, business_name, a
    field's dotted path, or "" (left out). A column is known by its header (a dotted path or a
    field's label) unless `mapping` says otherwise ({"their column": "field path" or ""});
    `blank` columns (no name, nothing in them) are left out. Raises ValidationError naming
    `mapping.<column>` or `columns.<column>` at fault."""
    if mapping in (None, ""):
        mapping = {}
    if not isinstance(mapping, Mapping):
        raise ValidationError({"mapping": ['Give an object: {"their column": "field path", '
                                           '"a column to leave out": ""}.']})
    names = _target_names()
    headers = [_column_name(text, index) for index, text in enumerate(header)]
    errors: dict[str, list[str]] = {}
    for their, target in mapping.items():
        if their not in headers:
            errors[f"mapping.{their}"] = ["No column of the file has this name."]
        elif not isinstance(target, str) or (target and target not in names.values()):
            errors[f"mapping.{their}"] = [f"Not something a column can fill: {TARGET_HELP}."]
    if errors:
        raise ValidationError(errors)
    result: dict[str, str] = {}
    filled_by: dict[str, str] = {}
    for name in headers:
        if name in result:
            errors[f"columns.{name}"] = ["Two columns have this name: rename one."]
            continue
        if name in mapping:
            target = mapping[name]
        elif name in blank:
            target = ""
        else:
            target = names.get(name.lower())
            if target is None:
                errors[f"columns.{name}"] = [f"Not a column of a listings file: map it "
                                             f"(mapping): {TARGET_HELP}."]
                continue
        if target and target in filled_by:
            errors[f"columns.{name}"] = [f"Fills {target}, as the column {filled_by[target]} "
                                         "does: leave one out."]
            continue
        if target:
            filled_by[target] = name
        result[name] = target
    if not errors and BUSINESS_NUMBER not in filled_by:
        errors["columns"] = ["No column says which location each row is: name one "
                             "business_number, or map yours to it."]
    if errors:
        raise ValidationError(errors)
    return result


def listing_import_unknown_columns(*, header: list[str],
                                   blank: set[str] | frozenset = frozenset()) -> list[str]:
    """The columns of a file that need a mapping (for the page that asks for one)."""
    names = _target_names()
    found = [_column_name(text, index) for index, text in enumerate(header)]
    return [name for name in found if name.lower() not in names and name not in blank]


# -- a row's own part of the listing -------------------------------------------------------------

@dataclass
class RowSet:
    """What a row sets on its location, and the cells it could not read."""

    own_set: dict = field(default_factory=dict)
    errors: list[dict] = field(default_factory=list)
    # The cells that change something, by field: all a row keeps once previewed.
    cells: dict[str, str] = field(default_factory=dict)


def _read_cell(column: Column, text: str, current: Any) -> Any:
    if same_cell(text, column.kind.cell(current)):
        return copy.deepcopy(current)
    if text.strip().lower() == CLEAR:
        # A yes/no field has no empty value of its own: cleared, it says no.
        return copy.deepcopy(column.kind.empty) if column.kind.empty is not None \
            else column.kind.read("no")
    return column.kind.read(text)


def row_set(cells: dict[str, str], baseline: dict, *, headers: dict[str, str]) -> RowSet:
    """The part of the listing a row's `cells` ({field path: text}) set on a listing that now
    holds `baseline`: only the fields whose value it changes. `headers` names the file's column
    of each field, for the errors."""
    columns = column_by_path()
    result = RowSet()
    address = dict((baseline.get("businessInfo") or {}).get("location") or {})
    address_cells: dict[str, str] = {}
    for path, text in cells.items():
        if not text.strip():
            continue  # an empty cell leaves its field as it is
        column = columns[path]
        current = column.value_of(baseline)
        try:
            value = _read_cell(column, text, current)
        except CellError as error:
            result.errors.append({"column": headers.get(path, path), "field": path,
                                  "message": str(error)})
            continue
        if column.address_line:
            # The provider replaces the address as a whole: its lines are set together.
            address_cells[path] = text
            if value in ("", None):
                address.pop(column.address_line, None)
            else:
                address[column.address_line] = value
        elif value != current:
            result.own_set.setdefault(column.section, {})[column.name] = value
            result.cells[path] = text
    old_address = (baseline.get("businessInfo") or {}).get("location")
    if address_cells and address != (old_address or {}):
        result.own_set.setdefault("businessInfo", {})["location"] = address
        result.cells.update(address_cells)
    return result


def _fields_of(own_sets: list[dict]) -> dict:
    """The bulk change's `set` for rows that each set their own values: every field some row
    sets, its value left out (null), since it differs by location."""
    fields: dict[str, dict] = {}
    for own_set in own_sets:
        for section, values in own_set.items():
            for name in values:
                fields.setdefault(section, {})[name] = None
    return fields


def _column_of(path: str, headers: dict[str, str]) -> str:
    """The file's column an error on `path` belongs to (the longest field path it is under)."""
    best = ""
    for field_path in headers:
        if (path == field_path or path.startswith((f"{field_path}.", f"{field_path}["))) \
                and len(field_path) > len(best):
            best = field_path
    return headers.get(best, "")


def _baselines(tenant: Reseller, locations: list[Business]) -> dict[int, dict]:
    accepted = listing_versions_last_accepted(
        tenant=tenant, business_ids=[location.pk for location in locations])
    return {location.pk: (accepted[location.pk].document if location.pk in accepted
                          else listing_document_from_business(location))
            for location in locations}


def _number(text: str) -> int | None:
    text = text.strip()
    if re.fullmatch(r"\d{1,18}(\.0+)?", text):
        return int(text.split(".")[0]) or None
    return None


# -- the import ----------------------------------------------------------------------------------

def _preview(*, tenant: Reseller, membership: Membership | None, table_rows: list,
             mapping: dict[str, str], header: list[str],
             listing_import: ListingImport) -> list[ListingImportRow]:
    headers = {target: name for name, target in mapping.items() if target}
    order = [_column_name(text, index) for index, text in enumerate(header)]
    rows: list[ListingImportRow] = []
    numbers: list[int] = []
    for line, cells in table_rows:
        by_column = dict(zip(order, [*cells, *[""] * (len(order) - len(cells))], strict=False))
        row = ListingImportRow(reseller=tenant, listing_import=listing_import, line=line,
                               errors=[], state=Row.UNCHANGED)
        extra = [cell for cell in cells[len(order):] if cell.strip()]
        if extra:
            row.errors.append({"column": "", "field": "", "message":
                               "Cells to the right of the last named column: give each a "
                               "header, or delete them."})
        row.cells = {target: by_column[name] for name, target in mapping.items()
                     if target and target not in IDENTITY and by_column[name].strip()}
        row.business_name = by_column.get(headers.get(BUSINESS_NAME, ""), "")[:1000]
        number_text = by_column[headers[BUSINESS_NUMBER]]
        row.business_number = _number(number_text)
        if row.business_number is None:
            row.errors.append({"column": headers[BUSINESS_NUMBER], "field": "",
                               "message": f"“{number_text.strip()}” is not a business number."
                               if number_text.strip() else "Give the business number."})
        else:
            numbers.append(row.business_number)
        rows.append(row)

    visible = business_list(tenant=tenant, membership=membership)
    found = {business.remote_id: business for business in
             visible.filter(remote_id__in=numbers).only(*LOCATION_FIELDS, "type")}
    first_line: dict[int, int] = {}
    for row in rows:
        number = row.business_number
        if number is None:
            continue
        business = found.get(number)
        where = headers[BUSINESS_NUMBER]
        if business is None:
            row.state = Row.UNKNOWN_BUSINESS
            row.errors.append({"column": where, "field": "", "message":
                               "No business in your part of the account has this number."})
        elif not business.is_location:
            row.errors.append({"column": where, "field": "", "message":
                               f"{business.name} is not a location: import its locations' "
                               "rows."})
        elif number in first_line:
            row.errors.append({"column": where, "field": "", "message":
                               f"Row {first_line[number]} is about the same location: give "
                               "each location one row."})
        else:
            first_line[number] = row.line
            row.business = business
            row.business_name = row.business_name or business.name[:1000]

    ready = [row for row in rows if row.business is not None]
    for row in rows:
        if row.business is None:
            row.cells = {}  # never applied
    baselines = _baselines(tenant, [row.business for row in ready])
    checked: list[tuple[ListingImportRow, dict]] = []
    for row in ready:
        made = row_set(row.cells, baselines[row.business.pk], headers=headers)
        row.errors += made.errors
        # Applying the row later sets what it changes now, measured again then.
        row.cells = made.cells
        if made.own_set:
            checked.append((row, made.own_set))
    if checked:
        own_sets = [own_set for _, own_set in checked]
        # The bulk change's own dry run, without storing one.
        rehearsal = BulkChange(reseller=tenant, set=_fields_of(own_sets),
                               lists=BulkChange.Lists.REPLACE)
        items = _dry_run_items(tenant=tenant, change=rehearsal,
                               locations=[row.business for row, _ in checked],
                               own_sets=own_sets)
        for (row, _), item in zip(checked, items, strict=True):
            row.diff = item.diff
            row.errors += [{"column": _column_of(error["field"], headers), **error}
                           for error in item.errors]
            row.state = item.state
    for row in rows:
        if row.state != Row.UNKNOWN_BUSINESS and row.errors:
            row.state = Row.INVALID
    return rows


def listing_import_create(*, tenant: Reseller, actor: User | None,
                          membership: Membership | None, data: bytes, file_name: str,
                          mapping: Any = None) -> ListingImport:
    """Read a listings file (CSV or XLSX) and store its preview: per row, the change it makes
    to its location's listing, "unchanged", or its errors next to their column. Nothing is
    sent and no bulk change is made. Raises ValidationError naming `file` (not CSV or XLSX,
    too big, too many rows), `columns.<column>` (a column that fills nothing known) or
    `mapping.<column>`."""
    table = read_table(data)
    resolved = listing_import_mapping(header=table.header, mapping=mapping,
                                      blank=blank_columns(table.header, table.rows))
    limited_to = membership.limited_to if membership is not None \
        and membership.limited_to_id is not None else None
    with transaction.atomic():
        listing_import = ListingImport.objects.create(
            reseller=tenant, created_by=actor if actor is not None and actor.pk else None,
            scope=limited_to, file_name=(file_name or "listings")[-255:], format=table.format,
            size=len(data), columns=table.header, mapping=resolved)
        rows = _preview(tenant=tenant, membership=membership, table_rows=table.rows,
                        mapping=resolved, header=table.header, listing_import=listing_import)
        ListingImportRow.objects.bulk_create(rows, batch_size=ITEM_BATCH)
        counts = {"rows": len(rows), **{state: 0 for state in Row.values}}
        for row in rows:
            counts[row.state] += 1
        listing_import.counts = counts
        listing_import.save(update_fields=["counts"])
        audit_record(tenant=tenant, actor=actor, action="listing_import.created",
                     obj=listing_import,
                     summary={"file_name": listing_import.file_name, "format": table.format,
                              "mapped": sorted(name for name, target in resolved.items()
                                               if target and name != target),
                              **counts})
    return listing_import


def _lines(rows: list[ListingImportRow]) -> str:
    shown = ", ".join(str(row.line) for row in rows[:ROWS_NAMED])
    more = f" and {len(rows) - ROWS_NAMED} more" if len(rows) > ROWS_NAMED else ""
    return f"{shown}{more}"


def listing_import_apply(*, tenant: Reseller, actor: User | None,
                         membership: Membership | None, listing_import: ListingImport,
                         waves: Any = None, wait_for_statuses: Any = False,
                         action_required_threshold: Any = 0, dry_run: Any = True,
                         skip_invalid: Any = False) -> BulkChange:
    """Make the import a bulk change of source "file": each row that changes its location sets
    its own part of the listing, measured again against the listings as they are now. With
    `dry_run=False` the change starts sending at once. A file with rows in error is applied
    only with `skip_invalid=True` (to its other rows); a file is applied once. Raises
    ValidationError naming the field at fault, or one with code "state" when the import was
    applied already or nothing can be sent."""
    errors = _clean_health(wait_for_statuses, action_required_threshold)
    for name, value in (("dry_run", dry_run), ("skip_invalid", skip_invalid)):
        if not isinstance(value, bool):
            errors[name] = ["Give true or false."]
    try:
        waves = _clean_waves(waves)
    except ValidationError as error:
        errors.update(error.message_dict)
    if errors:
        raise ValidationError(errors)
    if listing_import.applied_at is not None:
        raise ValidationError("This file was applied already: import it again to make another "
                              "bulk change.", code="state")
    rows = list(listing_import_row_list(tenant=tenant, listing_import=listing_import)
                .only("line", "state", "cells", "business", "business_number"))
    broken = [row for row in rows if row.state in (Row.INVALID, Row.UNKNOWN_BUSINESS)]
    if broken and not skip_invalid:
        raise ValidationError({"skip_invalid": [
            f"Rows {_lines(broken)} have errors: fix them and import the file again, or apply "
            "the other rows only with skip_invalid: true."]})
    changing = [row for row in rows if row.state == Row.WILL_CHANGE]
    if not changing:
        raise ValidationError("No row of this file changes its listing: there is nothing to "
                              "apply.", code="state")
    visible = {business.pk: business for business in
               business_list(tenant=tenant, membership=membership)
               .filter(pk__in=[row.business_id for row in changing])
               .only(*LOCATION_FIELDS, "type")}
    gone = [row for row in changing if row.business_id not in visible]
    if gone:
        raise ValidationError({"non_field_errors": [
            f"The locations of rows {_lines(gone)} are no longer in your part of the account: "
            "import the file again."]})
    headers = {target: name for name, target in listing_import.mapping.items() if target}
    locations = [visible[row.business_id] for row in changing]
    baselines = _baselines(tenant, locations)
    own_sets, kept = [], []
    for row, location in zip(changing, locations, strict=True):
        made = row_set(row.cells, baselines[location.pk], headers=headers)
        # A listing accepted since the preview may already hold what the row sets.
        if made.own_set and not made.errors:
            own_sets.append(made.own_set)
            kept.append(location)
    if not own_sets:
        raise ValidationError("The listings already hold what this file sets: there is "
                              "nothing to apply.", code="state")
    with transaction.atomic():
        locked = ListingImport.objects.select_for_update().get(pk=listing_import.pk,
                                                               reseller=tenant)
        if locked.applied_at is not None:
            raise ValidationError("This file was applied already: import it again to make "
                                  "another bulk change.", code="state")
        change = bulk_change_store(
            tenant=tenant, actor=actor, membership=membership,
            selection={"numbers": [location.remote_id for location in kept]},
            set_=_fields_of(own_sets), lists=BulkChange.Lists.REPLACE, waves=waves,
            locations=kept, own_sets=own_sets, source=BulkChange.Source.FILE,
            wait_for_statuses=wait_for_statuses,
            action_required_threshold=action_required_threshold)
        locked.bulk_change, locked.applied_at = change, timezone.now()
        locked.save(update_fields=["bulk_change", "applied_at"])
        listing_import.bulk_change, listing_import.applied_at = change, locked.applied_at
        audit_record(tenant=tenant, actor=actor, action="listing_import.applied",
                     obj=locked, summary={"bulk_change": change.pk, "rows": len(kept),
                                          "rows_skipped": len(broken), "dry_run": dry_run})
        if dry_run is False:
            change = bulk_change_apply(tenant=tenant, actor=actor, membership=membership,
                                       change=change)
    return change

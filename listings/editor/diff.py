"""What a change does to a listing: the fields it changes (shown before sending) and the
create-listing body that carries exactly those changes.

The provider merges a create-listing body into the stored listing object by object: a field a
body leaves out keeps its value, anything below a top-level object's fields is replaced whole
(sandbox/publishing.py ``merge_listing`` does the same). So the body of a change holds, for each
top-level object, the fields whose value differs from the last accepted listing; an empty value
("", [], {}, false, 0) counts as unset, so a field the user never filled is not sent (and does
not clear what the provider may hold), while a field cleared since the last accepted version is
sent empty, which clears it. The business name is always sent (the provider requires it).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from listings.editor import formats, hours
from listings.editor.schema import NOT_CLEARABLE, WEEKDAYS

ALWAYS_SENT = (("businessInfo", "name"),)


def is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {} or value is False \
        or (isinstance(value, int) and not isinstance(value, bool) and value == 0)


def same(old: Any, new: Any) -> bool:
    return (is_empty(old) and is_empty(new)) or old == new


def merge(base: dict | None, payload: dict) -> dict:
    """The listing after `payload` is accepted on top of `base` (the provider's merge)."""
    merged = {section: dict(fields) if isinstance(fields, dict) else fields
              for section, fields in copy.deepcopy(base or {}).items()}
    for section, fields in copy.deepcopy(payload).items():
        if isinstance(fields, dict) and isinstance(merged.get(section), dict):
            merged[section].update(fields)
        else:
            merged[section] = fields
    return merged


def changed_fields(base: dict | None, document: dict) -> list[tuple[str, str]]:
    """(section, field) pairs whose value in `document` differs from `base`."""
    base = base or {}
    changed = []
    for section, fields in document.items():
        old_fields = base.get(section) or {}
        if not isinstance(fields, dict):
            continue
        for name, value in fields.items():
            if not same(old_fields.get(name), value):
                if is_empty(value) and (section, name) in NOT_CLEARABLE:
                    continue
                changed.append((section, name))
    return changed


def listing_payload(base: dict | None, document: dict) -> dict:
    """The create-listing body that turns `base` (last accepted) into `document`."""
    payload: dict[str, dict] = {}
    for section, name in ALWAYS_SENT:
        value = (document.get(section) or {}).get(name)
        if value:
            payload.setdefault(section, {})[name] = value
    for section, name in changed_fields(base, document):
        payload.setdefault(section, {})[name] = copy.deepcopy(document[section][name])
    # Keep the order of the document's objects, for a readable body.
    return {section: payload[section] for section in document if section in payload}


# ------------------------------------------------------------------------ display
def _hours(seconds: Any) -> str:
    return formats.seconds_to_hour(seconds)


def _day_entries(entries: Any) -> str:
    """Ranges past midnight as entered (18:00–02:00), not as the two halves sent."""
    joined = hours.join_days(entries)
    if joined is None:
        days = [(entry, [(r.get("startHour"), r.get("endHour"))
                         for r in entry.get("workingHours") or []], None)
                for entry in entries if isinstance(entry, dict)] \
            if isinstance(entries, list) else []
    else:
        days = [(day.entry, [(r.start, r.end) for r in day.ranges], day.night_until)
                for day in joined]
    parts = []
    for entry, ranges, night_until in days:
        day = entry.get("day")
        name = WEEKDAYS[day] if isinstance(day, int) and 0 <= day < 7 else str(day)
        if not entry.get("isOpen") or not ranges:
            after = f" after {_hours(night_until)}" if night_until else ""
            parts.append(f"{name}: closed{after}")
        else:
            parts.append(f"{name}: " + ", ".join(
                f"{_hours(start)}–{_hours(end)}"
                + (" (next day)" if hours.is_overnight(start, end) else "")
                for start, end in ranges))
    return "; ".join(parts)


def _special_hours(entries: Any) -> str:
    parts = []
    for entry in entries if isinstance(entries, list) else []:
        if not entry.get("isOpen"):
            parts.append(f"{entry.get('specialDate')}: closed")
        else:
            parts.append(f"{entry.get('specialDate')}: {_hours(entry.get('startHour'))}–"
                         f"{_hours(entry.get('endHour'))}")
    return "; ".join(parts)


def display(section: str, name: str, value: Any) -> str:
    """A short readable text of one field's value."""
    if name == "wholeWeekOperating" or isinstance(value, bool):
        return "yes" if value else "no"
    if is_empty(value):
        return ""
    if name == "hoursOfOperations":
        return _day_entries(value)
    if name in ("moreHours", "mapsMoreHours") and isinstance(value, dict):
        return " | ".join(f"{label} — {_day_entries(days)}" for label, days in value.items())
    if name == "specialHours":
        return _special_hours(value)
    if name == "serviceAreas" and isinstance(value, list):
        return "; ".join(str(item.get("description", "")) for item in value)
    if name == "attributes" and isinstance(value, dict):
        return " | ".join(
            f"{group}: " + ", ".join(
                f"{item.get('attributeName') or item.get('attributeId')}="
                f"{'yes' if item.get('value') else 'no'}" for item in items)
            for group, items in value.items())
    if name == "mapsLocationAttributes" and isinstance(value, dict):
        return " | ".join(f"{group}: " + ", ".join(item.get("attributeId", "") for item in items)
                          for group, items in value.items())
    if name == "mapsActionLinks" and isinstance(value, list):
        return "; ".join(f"{item.get('id')} → {item.get('deepLinkUrl')}" for item in value)
    if name == "location" and isinstance(value, dict):
        return ", ".join(str(part) for key, part in value.items() if part not in ("", None))
    if isinstance(value, list):
        return "; ".join(str(item) for item in value)
    return str(value)


@dataclass(frozen=True)
class Change:
    path: str
    label: str
    old: str
    new: str


def listing_diff(base: dict | None, document: dict, labels: dict[str, str] | None = None
                 ) -> list[Change]:
    """Field-level changes from `base` (the last accepted listing) to `document`.

    The address is compared line by line, so that a changed city shows as the city."""
    labels = labels or {}
    changes = []
    for section, name in changed_fields(base, document):
        old = ((base or {}).get(section) or {}).get(name)
        new = document[section][name]
        if name == "location" and isinstance(new, dict):
            old = old if isinstance(old, dict) else {}
            for key in dict.fromkeys([*new, *old]):
                if not same(old.get(key), new.get(key)):
                    path = f"{section}.{name}.{key}"
                    changes.append(Change(path, labels.get(path, path), str(old.get(key) or ""),
                                          str(new.get(key) or "")))
            continue
        path = f"{section}.{name}"
        changes.append(Change(path, labels.get(path, path), display(section, name, old),
                              display(section, name, new)))
    return changes

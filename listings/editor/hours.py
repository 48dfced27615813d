"""Opening hours that run past midnight, carried in the provider's day entries.

A day entry (interface.md) holds ranges in seconds since midnight of its own day
(parameters.md), from 0 to 86400 with the start before the end: one range cannot cross
midnight. A bar open 18:00–02:00 on Friday is therefore sent as two ranges, Friday 18:00–24:00
(end 86400) and Saturday 00:00–02:00 (start 0), Sunday's night running into Monday. Reading a
listing back joins such a pair again, so that the editor shows 18:00–02:00 on Friday.

In the editor's own entries (`split_overnight`'s input, `join_overnight`'s output) a range whose
end is earlier than its start runs past midnight. A day open only for the end of the night
before reads back as closed: its own hours are none, and it is sent the same either way.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

DAY = 86400
DAYS_IN_WEEK = 7


def _is_hour(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_overnight(start: Any, end: Any) -> bool:
    return _is_hour(start) and _is_hour(end) and end < start


def split_overnight(entries: list[dict]) -> list[dict]:
    """The editor's day entries -> the provider's, by day: each range past midnight ends at
    midnight and its rest opens the next day at 00:00 (that day is open, even if it was
    closed or not given: closed apart from the night before)."""
    by_day = {entry["day"]: copy.deepcopy(entry) for entry in entries}
    carried: list[tuple[int, dict]] = []
    for entry in by_day.values():
        if not entry.get("isOpen"):
            continue
        for hours in entry.get("workingHours") or []:
            if is_overnight(hours.get("startHour"), hours.get("endHour")):
                carried.append(((entry["day"] + 1) % DAYS_IN_WEEK,
                                {"startHour": 0, "endHour": hours["endHour"]}))
                hours["endHour"] = DAY
    for day, hours in carried:
        entry = by_day.get(day)
        if entry is None or not entry.get("isOpen"):
            entry = by_day[day] = {**(entry or {"day": day}), "isOpen": 1, "workingHours": []}
        entry["workingHours"] = sorted([*entry["workingHours"], hours],
                                       key=lambda r: r["startHour"])
    return [by_day[day] for day in sorted(by_day)]


@dataclass
class JoinedRange:
    start: Any
    end: Any
    # (position of the entry, index of the range) of the provider's ranges it is made of
    sources: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class JoinedDay:
    entry: dict
    ranges: list[JoinedRange]
    night_until: Any = None  # where the night before ends on this day, if it runs into it

    @property
    def closed(self) -> bool:
        return not self.entry.get("isOpen") or not self.ranges


def _readable(entries: Any) -> bool:
    """Day entries the join understands: one per weekday, open ones with ranges of integers
    (or of blanks, on a closed day). Anything else is shown as it is."""
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return False
    days = [entry.get("day") for entry in entries]
    if not all(_is_hour(day) and 0 <= day < DAYS_IN_WEEK for day in days):
        return False
    return len(set(days)) == len(days) and all(
        isinstance(entry.get("workingHours") or [], list)
        and all(isinstance(hours, dict) for hours in entry.get("workingHours") or [])
        for entry in entries)


def join_days(entries: Any) -> list[JoinedDay] | None:
    """The provider's day entries with each range past midnight joined again (see the module
    docstring), in the entries' order; None when the entries are not readable as days."""
    if not _readable(entries):
        return None
    joined = [JoinedDay(entry, [JoinedRange(h.get("startHour"), h.get("endHour"),
                                            [(position, index)])
                                for index, h in enumerate(entry.get("workingHours") or [])]
                        if entry.get("isOpen") else [])
              for position, entry in enumerate(entries)]
    by_day = {day.entry["day"]: day for day in joined}
    for day in joined:
        following = by_day.get((day.entry["day"] + 1) % DAYS_IN_WEEK)
        if following is None or following is day:
            continue
        for late in day.ranges:
            if not (_is_hour(late.start) and 0 < late.start and late.end == DAY):
                continue
            early = next((r for r in following.ranges
                          if r.start == 0 and _is_hour(r.end) and 0 < r.end < DAY), None)
            if early is not None:
                late.end = following.night_until = early.end
                late.sources += early.sources
                following.ranges.remove(early)
    return joined


def join_overnight(entries: Any) -> Any:
    """The provider's day entries as the editor shows them: a pair of ranges across midnight
    is one range whose end is earlier than its start. Unreadable entries come back as given."""
    joined = join_days(entries)
    if joined is None:
        return entries
    result = []
    for day in joined:
        entry = {key: value for key, value in day.entry.items() if key != "workingHours"}
        if day.closed:
            entry.update(isOpen=0, workingHours=[{"startHour": "", "endHour": ""}])
        else:
            entry["workingHours"] = [{"startHour": r.start, "endHour": r.end}
                                     for r in day.ranges]
        result.append(entry)
    return result


def ranges_past_midnight(document: dict) -> list[str]:
    """Paths of the ranges of a listing document whose end is earlier than their start: the
    editor's way of writing a night, which the provider's day entries cannot carry."""
    info = document.get("additionalInfo") if isinstance(document, dict) else None
    if not isinstance(info, dict):
        return []
    lists = [("additionalInfo.hoursOfOperations", info.get("hoursOfOperations"))]
    for kind in ("moreHours", "mapsMoreHours"):
        labelled = info.get(kind)
        if isinstance(labelled, dict):
            lists += [(f"additionalInfo.{kind}.{label}", entries)
                      for label, entries in labelled.items()]
    found = []
    for path, entries in lists:
        for position, entry in enumerate(entries if isinstance(entries, list) else []):
            ranges = entry.get("workingHours") if isinstance(entry, dict) else None
            for index, times in enumerate(ranges if isinstance(ranges, list) else []):
                if isinstance(times, dict) and is_overnight(times.get("startHour"),
                                                            times.get("endHour")):
                    found.append(f"{path}[{position}].workingHours[{index}].endHour")
    return found

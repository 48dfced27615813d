"""Formatting of request values into the text shapes the provider expects."""

from __future__ import annotations

import datetime as dt

DATE_FORMAT = "%m/%d/%Y"  # MM/DD/YYYY
DATETIME_FORMAT = "%m/%d/%Y %H:%M:%S"  # MM/DD/YYYY HH:mm:ss (survey responses)

DateLike = dt.date | dt.datetime | str


def format_date(value: DateLike) -> str:
    """``date``/``datetime`` -> ``MM/DD/YYYY``; a str must already be in that shape."""
    if isinstance(value, dt.date):  # datetime is a date too; its time is dropped
        # Not strftime: it writes a year before 1000 with fewer than four digits.
        return f"{value.month:02d}/{value.day:02d}/{value.year:04d}"
    if isinstance(value, str):
        dt.datetime.strptime(value, DATE_FORMAT)  # raises ValueError on another shape
        return value
    raise TypeError(f"expected a date, datetime or MM/DD/YYYY str, got {type(value).__name__}")


def format_datetime(value: DateLike, *, end_of_day: bool = False) -> str:
    """``datetime`` -> ``MM/DD/YYYY HH:mm:ss``.

    A bare ``date`` means the whole day: its start, or its last second with ``end_of_day`` (so
    that a range given as two dates includes the end date).
    """
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        value = dt.datetime.combine(value, dt.time(23, 59, 59) if end_of_day else dt.time())
    if isinstance(value, dt.datetime):
        return f"{format_date(value)} {value:%H:%M:%S}"
    if isinstance(value, str):
        dt.datetime.strptime(value, DATETIME_FORMAT)
        return value
    raise TypeError(
        f"expected a date, datetime or 'MM/DD/YYYY HH:mm:ss' str, got {type(value).__name__}"
    )


def parse_status_moment(text: str | None) -> dt.datetime | None:
    """A status report's ``lastUpdated`` (``MM/DD/YYYY HH:mm:ss``, UTC) as an aware moment, or
    None for text of another shape (the interface says only "date-time text")."""
    try:
        moment = dt.datetime.strptime((text or "").strip(), DATETIME_FORMAT)
    except ValueError:
        return None
    return moment.replace(tzinfo=dt.UTC)

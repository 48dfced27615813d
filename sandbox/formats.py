"""Text shapes of dates and times in the provider's replies (parameters.md, "Dates")."""

from __future__ import annotations

import datetime

from django.utils import timezone


def us_date(value: datetime.date | datetime.datetime) -> str:
    """MM/DD/YYYY."""
    return value.strftime("%m/%d/%Y")


def month_day_year(value: datetime.date | datetime.datetime) -> str:
    """Mon DD, YYYY, e.g. Dec 04, 2013 (English month names whatever the locale)."""
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    return f"{months[value.month - 1]} {value.day:02d}, {value.year}"


def clock_time(value: datetime.datetime) -> str:
    """hh:mm AM."""
    hour = value.hour % 12 or 12
    return f"{hour:02d}:{value.minute:02d} {'AM' if value.hour < 12 else 'PM'}"


def epoch_millis(value: datetime.datetime) -> int:
    return int(value.timestamp() * 1000)


def local(value: datetime.datetime) -> datetime.datetime:
    """An aware datetime in the project's time zone (UTC unless configured)."""
    return timezone.localtime(value)

"""Writes behind "Your profile": a member's own name and time zone."""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo

from django.core.exceptions import ValidationError

from accounts.models import User

# The areas of the zone database whose names are places; the rest ("US/Eastern", "EST5EDT",
# "Etc/GMT+5", "Factory") are aliases and legacy names that would only double the list.
ZONE_AREAS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia",
              "Europe", "Indian", "Pacific")

# Offered first: where the agencies of this product and their clients mostly are.
COMMON_ZONES = (
    "America/New_York", "America/Chicago", "America/Denver", "America/Phoenix",
    "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu", "America/Toronto",
    "America/Vancouver", "America/Mexico_City", "America/Sao_Paulo", "Europe/London",
    "Europe/Dublin", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Amsterdam",
    "Europe/Athens", "Africa/Johannesburg", "Asia/Dubai", "Asia/Kolkata", "Asia/Singapore",
    "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland", "UTC",
)


@functools.cache
def zone_names() -> frozenset[str]:
    """The zones a member may choose from."""
    return frozenset(name for name in zoneinfo.available_timezones()
                     if name == "UTC" or name.split("/", 1)[0] in ZONE_AREAS)


def zone_label(name: str, *, now: dt.datetime | None = None) -> str:
    """"New York (UTC−05:00)": the place as people write it, and its offset today."""
    place = name.split("/", 1)[-1].replace("_", " ").replace("/", " / ")
    offset = (now or dt.datetime.now(dt.UTC)).astimezone(zoneinfo.ZoneInfo(name)).utcoffset()
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "−"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{place} (UTC{sign}{hours:02d}:{minutes:02d})"


def user_profile_update(*, user: User, full_name: str, time_zone: str) -> User:
    """Saves the member's own name and zone (blank: the portal's, settings.TIME_ZONE)."""
    full_name = full_name.strip()
    errors = {}
    if len(full_name) > User._meta.get_field("full_name").max_length:
        errors["full_name"] = ValidationError(
            "Full name: at most 200 characters.", code="max_length")
    if time_zone and time_zone not in zone_names() and time_zone != user.time_zone:
        errors["time_zone"] = ValidationError(
            "Time zone: choose one from the list (“%(zone)s” is not a time zone this portal "
            "knows).", code="invalid_choice", params={"zone": time_zone})
    if errors:
        raise ValidationError(errors)
    user.full_name = full_name
    user.time_zone = time_zone
    user.save(update_fields=["full_name", "time_zone"])
    return user

"""Moments the provider writes as text, read into datetimes for the `when` filter, so that a
page shows them like every other date: in the member's zone, with the zone named."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import timezone

from provider.formats import parse_status_moment

register = template.Library()

# Q&A entries: `updatedOn` "Dec 04, 2013" and `time` "09:05 AM" (English month names).
QNA_FORMAT = "%b %d, %Y %I:%M %p"


@register.filter
def status_moment(text: str):
    """A status report's `lastUpdated` ("11/23/2026 07:00:00", UTC) as a moment; text of
    another shape is given back as it is, to be shown rather than lost."""
    moment = parse_status_moment(text)
    return text if moment is None else moment


@register.filter
def qna_moment(day_text: str, clock_text: str = ""):
    """A Q&A entry's `updatedOn` and `time` as a moment. The provider names no zone for them;
    they are read in the portal's TIME_ZONE, the zone the embedded provider writes them in.
    Without a clock time the day alone; text of another shape is given back as it is."""
    day_text, clock_text = (day_text or "").strip(), (clock_text or "").strip()
    try:
        if not clock_text:
            return dt.datetime.strptime(day_text, "%b %d, %Y").date()
        moment = dt.datetime.strptime(f"{day_text} {clock_text}", QNA_FORMAT)
    except ValueError:
        return f"{day_text} {clock_text}".strip()
    return timezone.make_aware(moment, timezone.get_default_timezone())

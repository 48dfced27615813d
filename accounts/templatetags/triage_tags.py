"""The work a location's status report asks, for the pages that list locations."""

from django import template

from accounts.triage import Work, listing_work

register = template.Library()


@register.filter(name="listing_work")
def listing_work_filter(report) -> Work | None:
    """`{% with work=report|listing_work %}`: its tier, badge and "3 of 22 sites need action"."""
    return listing_work(report)

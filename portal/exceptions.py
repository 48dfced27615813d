"""Exceptions every layer may raise and the error pages understand."""

from django.core.exceptions import PermissionDenied


class AccessRefused(PermissionDenied):
    """A refusal whose message is written for the person refused, so the 403 page shows it
    (Django's and other packages' refusals are not meant for a reader)."""

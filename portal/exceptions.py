"""Exceptions every layer may raise and the error pages understand."""

from django.core.exceptions import PermissionDenied


class AccessRefused(PermissionDenied):
    """A refusal whose message is written for the person refused, so the 403 page shows it
    (Django's and other packages' refusals are not meant for a reader)."""


class ProviderUnavailable(Exception):
    """A provider call made while someone waits (a page, an API request) failed; `str(exc)`
    says why in words for them. `refused` is true when the provider answered and refused (a bad
    value, an unknown business, a key it does not accept), false when it could not answer
    (down, limiting, unreachable). The API answers the first 422 and the second 503."""

    def __init__(self, message: str, *, code: int | None = None, refused: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.refused = refused

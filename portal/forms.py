"""Plumbing of the portal's forms."""

from django import forms
from django.core.exceptions import ValidationError


def add_service_errors(form: forms.Form, error: ValidationError) -> None:
    """A service's messages on the form's fields, except where the input could not be read: the
    service saw an empty value there, and the form's own message says what is wrong."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error)
        return
    for field, messages in error.error_dict.items():
        if field not in form.errors:
            form.add_error(field, messages)

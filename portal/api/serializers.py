"""Serializer bases shared by the API's apps."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """A request body that refuses fields it does not know, naming each: a misspelt optional
    field is an error to fix, not a setting silently left at its default."""

    api_description = "A field this operation does not take is refused (400), named in `fields`."

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(str(name) for name in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: ["Unknown field: this operation does not take it."]
                     for name in unknown})
        return super().to_internal_value(data)


def form_errors(form) -> dict[str, list[str]]:
    """A Django form's errors as DRF field errors (`__all__` becomes `non_field_errors`)."""
    return {("non_field_errors" if name == "__all__" else name): [str(m) for m in messages]
            for name, messages in form.errors.items()}

"""Form fields of the listing editor: each knows how its value travels in the payload.

`to_payload(cleaned)` gives the JSON value for the create-listing body and
`from_payload(value)` turns a stored JSON value back into the field's initial value.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join

from listings.editor import formats


class PayloadMixin:
    empty_payload: Any = ""

    def to_payload(self, value: Any) -> Any:
        return "" if value is None else value

    def from_payload(self, value: Any) -> Any:
        return value


class TextField(PayloadMixin, forms.CharField):
    def __init__(self, *, required: bool = False, textarea: bool = False, **kwargs: Any):
        if textarea:
            kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 3}))
        super().__init__(required=required, **kwargs)

    def from_payload(self, value: Any) -> Any:
        return "" if value is None else str(value)


class FormattedField(TextField):
    """A string in a format of the provider; empty means "not set"."""

    is_valid: Callable[[str], bool] = staticmethod(lambda text: True)
    message = "Enter a valid value."
    input_type = "text"

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("widget", forms.TextInput(attrs={"type": self.input_type}))
        super().__init__(**kwargs)

    def normalize(self, value: str) -> str:
        return value

    def clean(self, value: Any) -> str:
        value = self.normalize(super().clean(value))
        if value and not self.is_valid(value):
            raise ValidationError(self.message, code="format")
        return value


class URLField(FormattedField):
    is_valid = staticmethod(formats.is_http_url)
    message = "Enter a full http:// or https:// address with a real host name."
    input_type = "url"


class EmailField(FormattedField):
    is_valid = staticmethod(formats.is_email)
    message = "Enter an email address such as name@example.com."
    input_type = "email"


class PhoneField(FormattedField):
    """The business phone, shaped (xxx) xxx-xxxx; ten digits typed any other way are shaped."""

    is_valid = staticmethod(formats.is_phone)
    message = "Enter the phone number shaped (xxx) xxx-xxxx."
    input_type = "tel"

    def normalize(self, value: str) -> str:
        digits = re.sub(r"\D", "", value)
        if value and re.fullmatch(r"[\d\s().+-]+", value):
            if len(digits) == 11 and digits.startswith("1"):
                digits = digits[1:]
            if len(digits) == 10:
                return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"
        return value


class InternationalPhoneField(FormattedField):
    is_valid = staticmethod(formats.is_international_phone)
    message = ("Enter the number in international format: + and 7 to 15 digits, "
               "e.g. +1 512 555 0100.")
    input_type = "tel"


class TimezoneField(FormattedField):
    """An IANA zone name, typed with suggestions (a datalist of every zone)."""

    is_valid = staticmethod(lambda text: text in formats.timezone_set())
    message = "Enter an IANA time zone name such as America/Chicago."

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("widget", forms.TextInput(attrs={"list": "timezones"}))
        super().__init__(**kwargs)


class DottedCategoryField(FormattedField):
    is_valid = staticmethod(formats.is_dotted_category)
    message = "Enter a dotted category path such as Food.Restaurant."


class DateField(PayloadMixin, forms.DateField):
    """A date picker; travels as MM/DD/YYYY."""

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("required", False)
        kwargs.setdefault("input_formats", ["%Y-%m-%d", formats.DATE_FORMAT])
        kwargs.setdefault("widget", forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
        super().__init__(**kwargs)
        self.error_messages["invalid"] = "Enter a date (MM/DD/YYYY)."

    def to_payload(self, value: datetime.date | None) -> str:
        return formats.format_date(value)

    def from_payload(self, value: Any) -> datetime.date | None:
        return formats.parse_date(value)


class BooleanField(PayloadMixin, forms.BooleanField):
    empty_payload = False

    def __init__(self, **kwargs: Any):
        super().__init__(required=False, **kwargs)

    def to_payload(self, value: Any) -> bool:
        return bool(value)

    def from_payload(self, value: Any) -> bool:
        return bool(value)


class FlagField(BooleanField):
    """A checkbox that travels as the integer 0 or 1."""

    empty_payload = 0

    def to_payload(self, value: Any) -> int:
        return 1 if value else 0


class ChoiceField(PayloadMixin, forms.ChoiceField):
    def __init__(self, *, choices: Any, required: bool = False, **kwargs: Any):
        super().__init__(choices=choices, required=required, **kwargs)

    def from_payload(self, value: Any) -> Any:
        return "" if value is None else str(value)


class HourField(forms.CharField):
    """A clock time HH:MM (a time input); cleaned into seconds since midnight.

    An end of 00:00 (or 24:00) means midnight at the end of the day."""

    def __init__(self, *, end: bool = False, **kwargs: Any):
        self.end = end
        kwargs.setdefault("widget", forms.TextInput(attrs={"type": "time", "step": "60"}))
        super().__init__(required=False, **kwargs)

    def clean(self, value: Any) -> int | None:
        text = super().clean(value)
        if not text:
            return None
        try:
            return formats.hour_to_seconds(text, end=self.end)
        except ValueError:
            raise ValidationError("Enter a time as HH:MM (24-hour clock).",
                                  code="invalid") from None


# ----------------------------------------------------------------------------- lists
class RepeatedInput(forms.Widget):
    """One text input per value, all with the same name, plus blank ones to add more.

    JavaScript (listings/static/listings/editor.js) adds an "Add another" button; without it,
    the blank inputs are there to fill and more appear after the form is reviewed."""

    def __init__(self, attrs: dict | None = None, *, blanks: int = 1, minimum: int = 2,
                 datalist: str = "", item_label: str = ""):
        super().__init__(attrs)
        self.blanks = blanks
        self.minimum = minimum
        self.datalist = datalist
        self.item_label = item_label

    def value_from_datadict(self, data, files, name):
        return data.getlist(name) if hasattr(data, "getlist") else data.get(name, [])

    def value_omitted_from_data(self, data, files, name):
        return name not in data

    def format_value(self, value: Any) -> list[str]:
        if value in (None, ""):
            return []
        if isinstance(value, str):
            return [value]
        return [str(item) for item in value]

    def id_for_label(self, id_: str) -> str:
        return f"{id_}_0" if id_ else id_

    def render(self, name, value, attrs=None, renderer=None):
        values = self.format_value(value)
        values += [""] * max(self.blanks, self.minimum - len(values))
        attrs = self.build_attrs(self.attrs, attrs or {})
        base_id = attrs.pop("id", "")
        label = self.item_label or name
        extra = {key: val for key, val in attrs.items() if key not in ("required",)}
        if self.datalist:
            extra["list"] = self.datalist
        inputs = format_html_join(
            "", '<input type="text" name="{}" value="{}" id="{}" aria-label="{}"{}>',
            ((name, item, f"{base_id}_{index}" if base_id else "", f"{label} {index + 1}",
              flatatt(extra)) for index, item in enumerate(values)),
        )
        return format_html('<div class="repeat" data-repeat="{}">{}</div>', label, inputs)


class ListField(PayloadMixin, forms.Field):
    """A list of strings entered in repeated inputs; blanks are dropped, order is kept."""

    empty_payload: Any = []
    widget = RepeatedInput
    item_valid: Callable[[str], bool] | None = None
    item_message = ""

    def __init__(self, *, datalist: str = "", item_label: str = "", minimum: int = 2,
                 item_valid: Callable[[str], bool] | None = None, item_message: str = "",
                 **kwargs: Any):
        kwargs.setdefault("widget", RepeatedInput(datalist=datalist, item_label=item_label,
                                                  minimum=minimum))
        super().__init__(required=False, **kwargs)
        if item_valid is not None:
            self.item_valid = item_valid
            self.item_message = item_message

    def to_python(self, value: Any) -> list[str]:
        if value in (None, ""):
            return []
        if isinstance(value, str):
            value = [value]
        return [str(item).strip() for item in value if str(item).strip()]

    def validate(self, value: list[str]) -> None:
        if self.item_valid is None:
            return
        wrong = [item for item in value if not self.item_valid(item)]
        if wrong:
            raise ValidationError(f"“{wrong[0]}” {self.item_message}", code="format")

    def to_payload(self, value: Any) -> list[str]:
        return list(value or [])

    def from_payload(self, value: Any) -> list[str]:
        return [str(item) for item in value] if isinstance(value, list) else []


class ServiceAreasField(ListField):
    """businessInfo.serviceAreas: a list of {description} objects, entered one per input."""

    def to_payload(self, value: Any) -> list[dict[str, str]]:
        return [{"description": item} for item in value or []]

    def from_payload(self, value: Any) -> list[str]:
        if not isinstance(value, list):
            return []
        return [str(item.get("description", "")) for item in value if isinstance(item, dict)]

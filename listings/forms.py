"""Forms of the listings pages: custom fields and webhook subscriptions.

They check what the provider would refuse, so the message lands on the right field before
anything is queued. The custom-field rules are the service's (`custom_field_validate`, which
the API runs too); the form reads the input and shows the service's messages on its fields.
The tenant never appears as a field.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator

from accounts.models import Reseller
from listings.models import WEBHOOK_EVENTS, CustomField
from listings.services import (
    CUSTOM_FIELD_TEXT_MAX_LENGTH,
    FIELD_NAME_MAX_LENGTH,
    custom_field_date_read,
    custom_field_validate,
    subscription_duplicates_check,
)
from portal.forms import add_service_errors

# parameters.md, Subscribe: the event names the provider publishes.
EVENT_NAMES = tuple(WEBHOOK_EVENTS)


def split_lines(text: str) -> list[str]:
    """The options typed one per line (blank lines dropped)."""
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


class CustomFieldForm(forms.Form):
    field_name = forms.CharField(label="Field name", max_length=FIELD_NAME_MAX_LENGTH,
                                 help_text="Unique in the account, ignoring case.")
    type = forms.ChoiceField(label="Type", choices=CustomField.Type.choices,
                             initial=CustomField.Type.TEXT)
    drop_down_options = forms.CharField(
        label="Drop-down options", required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One option per line. Required for the drop-down types, and only for them.")
    default_value = forms.CharField(
        label="Default value", required=False, max_length=CUSTOM_FIELD_TEXT_MAX_LENGTH,
        help_text="Must fit the type: a number, an http(s) URL, or one of the options "
                  "(several, comma-separated, for a multi-choice drop-down). A date field "
                  "takes its default in “Default date”.")
    default_date = forms.DateField(
        label="Default date", required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        input_formats=["%Y-%m-%d"],
        error_messages={"invalid": "Default date: choose a real day from the calendar."},
        help_text="Only for a date field.")
    field_description = forms.CharField(label="Description", required=False,
                                        max_length=CUSTOM_FIELD_TEXT_MAX_LENGTH,
                                        widget=forms.Textarea(attrs={"rows": 2}))
    filterable = forms.BooleanField(label="Filterable", required=False,
                                    help_text="Contacts can be filtered by this field.")

    def __init__(self, *args, tenant: Reseller, **kwargs):
        super().__init__(*args, **kwargs)
        self.tenant = tenant

    # The fields the form shows beside `custom_field_create`'s arguments.
    form_only = ("default_date",)

    @classmethod
    def from_payload(cls, payload: dict, *, tenant: Reseller) -> CustomFieldForm:
        """The form holding a queued field's create body (the provider's names and formats),
        to correct what the provider refused."""
        field_type = payload.get("type", "")
        default = payload.get("defaultValue", "") or ""
        data = {
            "field_name": payload.get("fieldName", ""), "type": field_type,
            "default_value": default, "default_date": "",
            "drop_down_options": "\n".join(payload.get("dropDownOptions") or []),
            "field_description": payload.get("fieldDescription", ""),
            "filterable": str(payload.get("filterable", "")).lower() == "true",
        }
        if field_type == CustomField.Type.DATE:
            day = custom_field_date_read(default)
            data["default_value"] = "" if day else default
            data["default_date"] = day.isoformat() if day else ""
        return cls(data, tenant=tenant)

    def clean(self):
        """The service's rules on what could be read; `cleaned_data` becomes the arguments of
        `custom_field_create` (and `default_date`, which the form turns into the default)."""
        cleaned = super().clean()
        field_type = cleaned.get("type", "")
        default = cleaned.get("default_value", "")
        day = cleaned.get("default_date")
        is_date = field_type == CustomField.Type.DATE
        if is_date and day is None and default:
            # Typed in the text box (without JavaScript both boxes show): read it if it is a
            # day rather than lose it, else say where a date goes.
            day = custom_field_date_read(default)
            if day is None:
                self.add_error("default_value", "A date field takes its default in “Default "
                                                "date”: choose the day there.")
        elif is_date and day is not None and default:
            self.add_error("default_value", "A date field takes one default: clear this box "
                                            "and keep the “Default date”.")
        elif not is_date and day is not None:
            self.add_error("default_date", "Only a date field takes a default date: clear it, "
                                           "or choose the type Date.")
        try:
            checked = custom_field_validate(
                tenant=self.tenant, field_name=cleaned.get("field_name", ""),
                type=field_type,
                drop_down_options=split_lines(cleaned.get("drop_down_options", "")),
                # A date field's default is the day (the text box's own error is above).
                default_value=(day or "") if is_date else default,
                field_description=cleaned.get("field_description", ""),
                filterable=cleaned.get("filterable", False))
        except ValidationError as exc:
            if is_date and hasattr(exc, "error_dict") and "default_value" in exc.error_dict:
                # The date was chosen in the date box: its message goes there.
                exc.error_dict["default_date"] = exc.error_dict.pop("default_value")
            add_service_errors(self, exc)
            return cleaned
        cleaned.update({name: value for name, value in checked.items() if name not in self.errors})
        return cleaned

    def create_arguments(self) -> dict:
        """The keyword arguments of `custom_field_create` from a valid form."""
        return {name: value for name, value in self.cleaned_data.items()
                if name not in self.form_only}


class SubscriptionForm(forms.Form):
    webhook_url = forms.CharField(
        label="Webhook URL", max_length=1000,
        widget=forms.URLInput(attrs={"placeholder": "https://hooks.example.com/portal"}),
        help_text="Where the provider delivers the events; https only.")
    event_names = forms.MultipleChoiceField(
        label="Events", choices=list(WEBHOOK_EVENTS.items()),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one event.",
                        "invalid_choice": "Select a valid choice. %(value)s is not one of the "
                                          "events the provider publishes."},
        help_text="Tick every event this URL should receive. The provider takes one event per "
                  "subscription, so one subscription is made for each.")
    emails = forms.CharField(
        label="Notification emails", required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Optional; separate several addresses with commas or new lines.")
    auth_username = forms.CharField(label="Basic-auth user name", required=False,
                                    max_length=255,
                                    widget=forms.TextInput(attrs={"autocomplete": "off"}))
    auth_password = forms.CharField(
        label="Basic-auth password", required=False, max_length=255,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}, render_value=False),
        help_text="Sent to the provider once and never shown again; after an error, enter it "
                  "again.")

    def clean_webhook_url(self) -> str:
        url = self.cleaned_data["webhook_url"].strip()
        parts = urlsplit(url)
        if parts.scheme != "https":
            raise ValidationError("The webhook URL must start with https://.")
        try:
            URLValidator(schemes=["https"])(url)
        except ValidationError as exc:
            raise ValidationError("Enter a valid https URL with a host name.") from exc
        if parts.username or parts.password:
            raise ValidationError("Put credentials in the basic-auth fields, not in the URL.")
        return url

    def __init__(self, *args, tenant: Reseller, **kwargs):
        super().__init__(*args, **kwargs)
        self.tenant = tenant

    def clean_emails(self) -> list[str]:
        emails = [e for e in re.split(r"[\s,;]+", self.cleaned_data.get("emails", "")) if e]
        bad = []
        for email in emails:
            try:
                EmailValidator()(email)
            except ValidationError:
                bad.append(email)
        if bad:
            raise ValidationError(f"Not an email address: {', '.join(bad)}.")
        return list(dict.fromkeys(emails))

    def clean(self):
        cleaned = super().clean()
        username = (cleaned.get("auth_username") or "").strip()
        password = cleaned.get("auth_password") or ""
        cleaned["auth_username"] = username
        if username and not password:
            self.add_error("auth_password", "Give the password for this user name.")
        elif password and not username:
            self.add_error("auth_username", "Give the user name for this password.")
        if cleaned.get("webhook_url") and cleaned.get("event_names"):
            try:
                subscription_duplicates_check(tenant=self.tenant,
                                              webhook_url=cleaned["webhook_url"],
                                              event_names=cleaned["event_names"])
            except ValidationError as exc:
                add_service_errors(self, exc)
        return cleaned


# -- a location's hierarchy levels ------------------------------------------------------

LEVEL_NAME_MAX = 200  # the provider's limit on a level name
LEVEL_VALUE_MAX = 1000


class HierarchyLevelForm(forms.Form):
    """One level of a location's hierarchy: its name and its value."""

    level_name = forms.CharField(label="Level", max_length=LEVEL_NAME_MAX, required=False,
                                 strip=True)
    level_value = forms.CharField(label="Value", max_length=LEVEL_VALUE_MAX, required=False,
                                  strip=True)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("DELETE"):
            return cleaned
        name, value = cleaned.get("level_name", ""), cleaned.get("level_value", "")
        if "level_name" in self.errors or "level_value" in self.errors:
            return cleaned
        if self.initial and not name and not value:
            self.add_error("level_value", "Give this level a value, or tick Remove to drop it.")
        elif name and not value:
            self.add_error("level_value",
                           "Give a value: the provider replaces the whole mapping, so a level "
                           "sent without its value would be lost.")
        elif value and not name:
            self.add_error("level_name", "Name the level this value belongs to.")
        return cleaned


class BaseHierarchyFormSet(forms.BaseFormSet):
    """Every level of a location at once: the provider overwrites the whole mapping."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        number = (index + 1) if index is not None else "new"
        form.fields["level_name"].label = f"Level {number} name"
        form.fields["level_value"].label = f"Level {number} value"
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = f"Remove level {number}"

    def clean(self):
        if any(self.errors):
            return
        seen: dict[str, int] = {}
        for form in self.forms:
            if self._should_delete_form(form):
                continue
            name = (form.cleaned_data.get("level_name") or "").strip()
            if not name:
                continue
            key = name.casefold()
            if key in seen:
                form.add_error("level_name", f"“{name}” is already given above; each level "
                                             "appears once.")
            seen[key] = 1
        if any(self.errors):
            raise forms.ValidationError("Correct the levels marked below.")
        if not self.levels():
            raise forms.ValidationError("Give at least one level with its value.")

    def levels(self) -> dict[str, str]:
        """The mapping to send: level name -> value, in the order shown."""
        levels = {}
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or self._should_delete_form(form):
                continue
            name = (form.cleaned_data.get("level_name") or "").strip()
            value = (form.cleaned_data.get("level_value") or "").strip()
            if name and value:
                levels[name] = value
        return levels


HierarchyFormSet = forms.formset_factory(HierarchyLevelForm, formset=BaseHierarchyFormSet,
                                         extra=2, can_delete=True, can_delete_extra=False,
                                         max_num=200,
                                         validate_max=True)

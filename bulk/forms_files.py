"""Forms of the listings files pages: the upload, the columns of a file, applying an import."""

from __future__ import annotations

import re

from django import forms

from bulk.files import BUSINESS_NAME, BUSINESS_NUMBER, listing_columns

LEAVE_OUT = ""


class ListingImportUploadForm(forms.Form):
    file = forms.FileField(
        label="Listings file", allow_empty_file=True,
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.xlsx,text/csv,application/"
                                                         "vnd.openxmlformats-officedocument."
                                                         "spreadsheetml.sheet"}),
        help_text="CSV or Excel (.xlsx), with a first row naming the columns, as an export "
                  "writes it.")


def target_choices() -> list[tuple[str, str]]:
    return [(LEAVE_OUT, "— leave this column out —"),
            (BUSINESS_NUMBER, "Business number (which location the row is)"),
            (BUSINESS_NAME, "Business name (not imported)"),
            *((column.path, f"{column.label} ({column.path})") for column in listing_columns())]


class ListingImportColumnsForm(forms.Form):
    """One choice per column the file names in its own words: the field it fills."""

    def __init__(self, *args, columns: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.column_names = {}
        for index, name in enumerate(columns):
            key = f"column_{index}"
            self.column_names[key] = name
            self.fields[key] = forms.ChoiceField(label=name, choices=target_choices(),
                                                 required=False)

    def mapping(self) -> dict[str, str]:
        return {self.column_names[key]: value or LEAVE_OUT
                for key, value in self.cleaned_data.items()}

    def add_column_errors(self, fields: dict[str, list[str]]) -> None:
        """The import's errors (`columns.<name>`, `mapping.<name>`) on their column's choice."""
        by_name = {name: key for key, name in self.column_names.items()}
        for field, messages in fields.items():
            name = field.split(".", 1)[1] if "." in field else ""
            key = by_name.get(name)
            for message in messages:
                self.add_error(key, f"{name}: {message}" if key is None and name else message)


class ListingImportApplyForm(forms.Form):
    waves = forms.CharField(
        required=False, max_length=500, label="Waves",
        help_text="Locations per wave, in order, the last size repeating: 5, 50 sends 5 "
                  "locations first, then 50 at a time. Empty: all in one wave.",
        widget=forms.TextInput(attrs={"placeholder": "5, 50", "inputmode": "numeric"}))
    wait_for_statuses = forms.BooleanField(
        required=False, label="Read the directories' statuses again after each wave")
    action_required_threshold = forms.IntegerField(
        required=False, min_value=0, initial=0, label="New Action Required sites a wave may "
                                                      "cause before the change pauses")
    skip_invalid = forms.BooleanField(
        required=False, label="Leave out the rows with errors",
        help_text="Without it, a file with rows in error is not applied.")

    def clean_waves(self) -> list:
        text = self.cleaned_data["waves"].strip()
        if not text:
            return []
        parts = [part for part in re.split(r"[\s,;]+", text) if part]
        if not all(re.fullmatch(r"\d+", part) for part in parts):
            raise forms.ValidationError("Give whole numbers separated by commas, such as 5, 50.")
        return [int(part) for part in parts]

    def clean_action_required_threshold(self) -> int:
        return self.cleaned_data["action_required_threshold"] or 0

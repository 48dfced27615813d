"""Forms of the media tab: the gallery filters and the add-media form.

The add-media form reads the input; the provider's rules on an upload are the service's
(`media_app.services.media_validate`, which the API runs too), and the form shows its messages
on their fields.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from media_app.models import MediaItem
from media_app.services import DESCRIPTION_MAX_LENGTH, URL_MAX_LENGTH, media_validate
from portal.forms import add_service_errors


class MediaFilterForm(forms.Form):
    category = forms.ChoiceField(label="Category", required=False,
                                 choices=[("", "All categories"), *MediaItem.Category.choices])
    format = forms.ChoiceField(label="Format", required=False,
                               choices=[("", "All formats"), *MediaItem.Format.choices])

    def values(self) -> dict[str, str]:
        """The valid filters; an unknown value counts as no filter."""
        if not self.is_valid():
            return {"category": "", "format": ""}
        return {"category": self.cleaned_data["category"], "format": self.cleaned_data["format"]}


class MediaAddForm(forms.Form):
    url = forms.CharField(
        label="URL", max_length=URL_MAX_LENGTH,
        widget=forms.URLInput(attrs={"placeholder": "https://images.example.com/storefront.jpg"}),
        help_text="A public http(s) address. Photos: JPG or PNG, 720 × 720 px, at least 10 KB. "
                  "Videos: MP4, 30 seconds, 720p or higher, up to 75 MB.")
    media_format = forms.ChoiceField(label="Format", choices=MediaItem.Format.choices,
                                     initial=MediaItem.Format.PHOTO)
    category = forms.ChoiceField(label="Category", choices=MediaItem.Category.choices)
    description = forms.CharField(label="Description", required=False,
                                  max_length=DESCRIPTION_MAX_LENGTH,
                                  widget=forms.Textarea(attrs={"rows": 2}))

    def clean(self):
        """The service's rules on what could be read; `cleaned_data` becomes the arguments of
        `media_add`."""
        cleaned = super().clean()
        try:
            checked = media_validate(url=cleaned.get("url", ""),
                                     media_format=cleaned.get("media_format", ""),
                                     category=cleaned.get("category", ""),
                                     description=cleaned.get("description", ""))
        except ValidationError as exc:
            add_service_errors(self, exc)
            return cleaned
        cleaned.update({name: value for name, value in checked.items() if name not in self.errors})
        return cleaned



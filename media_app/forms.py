"""Forms of the media tab: the gallery filters and the add-media form.

The add-media form applies the provider's rules (interface.md, Media; parameters.md) so that a
mistake is shown on its field instead of coming back as a rejection: the category (2175) and the
format (2174) from their lists, an http(s) URL with a host (2171), photos as JPG or PNG, videos
as MP4 (2181).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError

from media_app.models import MediaItem

PHOTO_EXTENSIONS = (".jpg", ".jpeg", ".png")
VIDEO_EXTENSIONS = (".mp4",)


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
        label="URL", max_length=2000,
        widget=forms.URLInput(attrs={"placeholder": "https://images.example.com/storefront.jpg"}),
        help_text="A public http(s) address. Photos: JPG or PNG, 720 × 720 px, at least 10 KB. "
                  "Videos: MP4, 30 seconds, 720p or higher, up to 75 MB.")
    media_format = forms.ChoiceField(label="Format", choices=MediaItem.Format.choices,
                                     initial=MediaItem.Format.PHOTO)
    category = forms.ChoiceField(label="Category", choices=MediaItem.Category.choices)
    description = forms.CharField(label="Description", required=False, max_length=1000,
                                  widget=forms.Textarea(attrs={"rows": 2}))

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or " " in url:
            raise ValidationError("Enter a valid http:// or https:// address with a host name.",
                                  code="2171")
        return url

    def clean(self):
        cleaned = super().clean()
        url, media_format = cleaned.get("url"), cleaned.get("media_format")
        if not url or not media_format:
            return cleaned
        path = urlsplit(url).path.lower()
        if media_format == MediaItem.Format.PHOTO and not path.endswith(PHOTO_EXTENSIONS):
            self.add_error("url", ValidationError(
                "A photo must be a JPG or PNG file: the address must end in .jpg, .jpeg or .png.",
                code="photo_format"))
        elif media_format == MediaItem.Format.VIDEO and not path.endswith(VIDEO_EXTENSIONS):
            self.add_error("url", ValidationError(
                "Only MP4 videos are supported: the address must end in .mp4.", code="2181"))
        return cleaned

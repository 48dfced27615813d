"""Serializers of the media API: gallery items, the add-media body and the queued change."""

from __future__ import annotations

from rest_framework import serializers

from media_app.forms import MediaAddForm, MediaFilterForm
from media_app.models import MediaItem
from media_app.services import DESCRIPTION_MAX_LENGTH, URL_MAX_LENGTH, media_validate
from portal.api.serializers import StrictSerializer, form_errors


class MediaFilterSerializer(serializers.Serializer):
    """Query parameters of the gallery, checked by the portal's filter form. The format is
    `media_format` because DRF keeps `format` for choosing the response's renderer."""

    category = serializers.ChoiceField(choices=MediaItem.Category.choices, required=False)
    media_format = serializers.ChoiceField(choices=MediaItem.Format.choices, required=False)

    def validate(self, attrs):
        form = MediaFilterForm({"category": self.initial_data.get("category", ""),
                                "format": self.initial_data.get("media_format", "")})
        if not form.is_valid():
            errors = form_errors(form)
            if "format" in errors:
                errors["media_format"] = errors.pop("format")
            raise serializers.ValidationError(errors)
        return {"category": form.cleaned_data["category"],
                "media_format": form.cleaned_data["format"]}


class MediaItemSerializer(serializers.ModelSerializer):
    media_id = serializers.CharField(source="remote_id", read_only=True)

    class Meta:
        model = MediaItem
        fields = ["media_id", "url", "category", "format", "description", "last_seen_at"]
        read_only_fields = fields


class MediaAddSerializer(StrictSerializer):
    """A photo or video to upload; checked with the provider's rules by the service
    (`media_app.services.media_validate`, which the page's form runs too). The validated data
    are the arguments of `media_add`."""

    url = serializers.CharField(max_length=URL_MAX_LENGTH,
                                help_text=MediaAddForm.base_fields["url"].help_text)
    media_format = serializers.ChoiceField(choices=MediaItem.Format.choices)
    category = serializers.ChoiceField(choices=MediaItem.Category.choices)
    description = serializers.CharField(max_length=DESCRIPTION_MAX_LENGTH, required=False,
                                        allow_blank=True, default="")

    def validate(self, attrs):
        return media_validate(**attrs)

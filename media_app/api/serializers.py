"""Serializers of the media API: gallery items, the add-media body and the queued change."""

from __future__ import annotations

from rest_framework import serializers

from media_app.forms import MediaAddForm, MediaFilterForm
from media_app.models import MediaItem
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
    """A photo or video to upload; checked with the same rules as the portal's form."""

    url = serializers.CharField(max_length=2000,
                                help_text=MediaAddForm.base_fields["url"].help_text)
    media_format = serializers.ChoiceField(choices=MediaItem.Format.choices)
    category = serializers.ChoiceField(choices=MediaItem.Category.choices)
    description = serializers.CharField(max_length=1000, required=False, allow_blank=True,
                                        default="")

    def validate(self, attrs):
        form = MediaAddForm(data=attrs)
        if not form.is_valid():
            raise serializers.ValidationError(form_errors(form))
        return form.cleaned_data

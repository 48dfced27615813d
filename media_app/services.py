"""Writes of the media app, and the provider's rules on an upload (interface.md, Media;
parameters.md), checked before it is queued so that a mistake is named on its field instead of
coming back as a rejection: the category (2175) and the format (2174) from their lists, an
http(s) URL with a host (2171), photos as JPG or PNG, videos as MP4 (2181)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import transaction

from accounts.models import Business, Reseller, User
from media_app.models import MediaItem
from outbox.models import OutboxEntry
from outbox.services import outbox_enqueue

PHOTO_EXTENSIONS = (".jpg", ".jpeg", ".png")
VIDEO_EXTENSIONS = (".mp4",)
URL_MAX_LENGTH = 2000
DESCRIPTION_MAX_LENGTH = 1000

REQUIRED = "This field is required."
NOT_A_CHOICE = "Select a valid choice. %(value)s is not one of the available choices."


def _choice_errors(value: str, choices: list[str]) -> list[ValidationError]:
    if not value:
        return [ValidationError(REQUIRED, code="required")]
    if value not in choices:
        return [ValidationError(NOT_A_CHOICE, code="invalid_choice", params={"value": value})]
    return []


def _length_errors(value: str, max_length: int) -> list[ValidationError]:
    try:
        MaxLengthValidator(max_length)(value)
    except ValidationError as exc:
        return [exc]
    return []


def _http_path(url: str) -> str | None:
    """The path of an http(s) address with a host name, lowercased; None for anything else."""
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed [ of an IPv6 host
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or " " in url:
        return None
    return parts.path.lower()


def media_validate(*, url: str, media_format: str, category: str,
                   description: str = "") -> dict[str, str]:
    """Check an upload against the provider's rules, every broken one at once.

    Raises a ValidationError keyed by the argument's name (`url`, `media_format`, `category`,
    `description`). Returns the keyword arguments of `media_add` as they are to be sent (the
    URL and the description stripped).
    """
    errors: dict[str, list[ValidationError]] = {}

    def add(field: str, found: list[ValidationError]) -> None:
        if found:
            errors.setdefault(field, []).extend(found)

    url = (url or "").strip()
    description = (description or "").strip()
    if not url:
        add("url", [ValidationError(REQUIRED, code="required")])
    else:
        add("url", _length_errors(url, URL_MAX_LENGTH))
    path = _http_path(url) if "url" not in errors else None
    if "url" not in errors and path is None:
        add("url", [ValidationError("Enter a valid http:// or https:// address with a host "
                                    "name.", code="2171")])
    add("media_format", _choice_errors(media_format, MediaItem.Format.values))
    add("category", _choice_errors(category, MediaItem.Category.values))
    add("description", _length_errors(description, DESCRIPTION_MAX_LENGTH))
    # The file type is judged from the address, which only a readable URL and format allow.
    if path is not None and "media_format" not in errors:
        if media_format == MediaItem.Format.PHOTO and not path.endswith(PHOTO_EXTENSIONS):
            add("url", [ValidationError(
                "A photo must be a JPG or PNG file: the address must end in .jpg, .jpeg or "
                ".png.", code="photo_format")])
        elif media_format == MediaItem.Format.VIDEO and not path.endswith(VIDEO_EXTENSIONS):
            add("url", [ValidationError(
                "Only MP4 videos are supported: the address must end in .mp4.", code="2181")])
    if errors:
        raise ValidationError(errors)
    return {"url": url, "media_format": media_format, "category": category,
            "description": description}


@transaction.atomic
def media_add(*, tenant: Reseller, actor: User | None, business: Business, url: str,
              category: str, description: str, media_format: str) -> OutboxEntry:
    """Queue an upload for the provider; it appears in the gallery once accepted.

    The page and the API check it with `media_validate` first; what reaches this one is sent
    as it is, and the provider's verdict is kept with the change.
    """
    payload = {"url": url, "mediaCategory": category, "description": description,
               "mediaFormat": media_format}
    return outbox_enqueue(tenant=tenant, actor=actor, kind=OutboxEntry.Kind.MEDIA_ADD,
                          payload=payload, business=business,
                          summary=f"{media_format.title()} {url}")

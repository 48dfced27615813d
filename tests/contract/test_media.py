"""Add media (4) and get media (5)."""

from __future__ import annotations

import re

import pytest

from provider import Rejected
from provider.types import MediaItem, MediaUpload
from sandbox.models import MediaItem as StoredMedia

from .conftest import LIVE_DB

pytestmark = LIVE_DB

MEDIA_ID = re.compile(r"^[0-9a-f]{24}$")


def test_added_media_is_stored_and_listed(client, ids):
    before = client.get_media(ids.location)
    assert [m.media_id for m in before] == list(
        StoredMedia.objects.filter(location__number=ids.location)
        .order_by("created_at", "pk")
        .values_list("media_id", flat=True)
    )
    uploads = [
        MediaUpload("https://cdn.example.com/team.jpg", "TEAMS", "PHOTO", "Our team"),
        {  # a plain mapping is sent as given
            "url": "https://cdn.example.com/tour.mp4",
            "mediaCategory": "ADDITIONAL",
            "description": "A tour",
            "mediaFormat": "VIDEO",
        },
    ]

    added = client.add_media(ids.location, uploads)

    assert len(added) == 2 and all(isinstance(m, MediaItem) for m in added)
    assert all(MEDIA_ID.match(m.media_id) for m in added)
    assert [(m.url, m.media_category, m.media_format, m.description) for m in added] == [
        ("https://cdn.example.com/team.jpg", "TEAMS", "PHOTO", "Our team"),
        ("https://cdn.example.com/tour.mp4", "ADDITIONAL", "VIDEO", "A tour"),
    ]
    for item in added:
        row = StoredMedia.objects.get(media_id=item.media_id)
        assert row.location.number == ids.location
        assert (row.url, row.category, row.format, row.description) == (
            item.url,
            item.media_category,
            item.media_format,
            item.description,
        )

    after = client.get_media(ids.location)
    assert len(after) == len(before) + 2
    listed = {m.media_id: m for m in after}
    for item in added:
        assert listed[item.media_id] == item  # same fields (raw is not compared)


def test_an_unsupported_media_format_is_rejected_and_nothing_is_added(client, ids):
    before = StoredMedia.objects.count()
    uploads = [
        MediaUpload("https://cdn.example.com/ok.jpg", "EXTERIOR", "PHOTO"),
        MediaUpload("https://cdn.example.com/anim.gif", "EXTERIOR", "GIF"),
    ]
    with pytest.raises(Rejected) as caught:
        client.add_media(ids.location, uploads)
    assert (caught.value.code, caught.value.http_status) == (2174, 400)
    assert caught.value.message == "Unsupported media format"  # the provider's words
    assert caught.value.outcome_unknown is False
    assert StoredMedia.objects.count() == before


def test_the_other_media_checks_are_rejected(client, ids):
    for upload, code in (
        (MediaUpload("https://cdn.example.com/a.jpg", "LOBBY", "PHOTO"), 2175),
        (MediaUpload("not a url", "INTERIOR", "PHOTO"), 2171),
        (MediaUpload("https://cdn.example.com/a.mov", "INTERIOR", "VIDEO"), 2181),
    ):
        with pytest.raises(Rejected) as caught:
            client.add_media(ids.location, [upload])
        assert (caught.value.code, caught.value.http_status) == (code, 400)


def test_media_needs_a_location(client, ids):
    upload = MediaUpload("https://cdn.example.com/a.jpg", "TEAMS", "PHOTO")
    for call in (
        lambda: client.add_media(ids.enterprise, [upload]),
        lambda: client.get_media(ids.account),
    ):
        with pytest.raises(Rejected) as caught:
            call()
        assert (caught.value.code, caught.value.http_status) == (1043, 400)
    assert not StoredMedia.objects.filter(url=upload.url).exists()

"""The media tab of a business: gallery with filters, uploads on their way, add-media form."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Business, Role
from media_app.models import MediaItem
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(1)


def url(business, slug=None):
    return reverse("business_media", args=[slug or business.reseller.slug, business.remote_id])


def add_item(business, category="EXTERIOR", media_format="PHOTO", url_=None, **extra):
    number = next(_ids)
    return MediaItem.unscoped.create(
        reseller=business.reseller, business=business, remote_id=f"m{number}",
        url=url_ or f"https://images.example.com/{number}.jpg", category=category,
        format=media_format, description=extra.pop("description", f"Item {number}"), **extra)


def valid(**changes):
    data = {"url": "https://images.example.com/front.jpg", "media_format": "PHOTO",
            "category": "EXTERIOR", "description": "The storefront"}
    data.update(changes)
    return data


@pytest.fixture
def manager(member_client):
    client, membership = member_client(Role.MANAGER)
    return client, BusinessFactory(reseller=membership.reseller)


def test_the_gallery_shows_photos_as_lazy_thumbnails_and_videos_as_links(manager):
    client, business = manager
    add_item(business, url_="https://images.example.com/shop.jpg", description="Shop front")
    add_item(business, media_format="VIDEO", url_="https://videos.example.com/tour.mp4")
    add_item(business, url_="https://images.example.com/gone.jpg", removed_at="2026-01-01T00:00Z")
    add_item(BusinessFactory(reseller=business.reseller),
             url_="https://images.example.com/another-location.jpg")
    page = client.get(url(business)).content.decode()
    assert '<img src="https://images.example.com/shop.jpg" loading="lazy" alt="Shop front"' in page
    assert '<a class="video-tile" href="https://videos.example.com/tour.mp4"' in page
    assert '<img src="https://videos.example.com/tour.mp4"' not in page
    assert "gone.jpg" not in page and "another-location" not in page


@pytest.mark.parametrize("query,shown,hidden", [
    ("?category=INTERIOR", ["inside"], ["outside", "clip"]),
    ("?format=VIDEO", ["clip"], ["inside", "outside"]),
    ("?category=EXTERIOR&format=PHOTO", ["outside"], ["inside", "clip"]),
    ("?category=NONSENSE", ["inside", "outside", "clip"], []),
])
def test_category_and_format_filters(manager, query, shown, hidden):
    client, business = manager
    add_item(business, category="INTERIOR", url_="https://images.example.com/inside.jpg")
    add_item(business, category="EXTERIOR", url_="https://images.example.com/outside.jpg")
    add_item(business, category="EXTERIOR", media_format="VIDEO",
             url_="https://videos.example.com/clip.mp4")
    page = client.get(url(business) + query).content.decode()
    for name in shown:
        assert name in page
    for name in hidden:
        assert name not in page


def test_another_tenants_member_gets_404(member_client):
    business = BusinessFactory()
    client, _ = member_client(Role.OWNER)
    assert client.get(url(business)).status_code == 404
    assert client.post(url(business), valid()).status_code == 404


def test_another_tenants_business_id_gets_404(manager):
    client, business = manager
    foreign = BusinessFactory(reseller=ResellerFactory())
    assert client.get(url(foreign, slug=business.reseller.slug)).status_code == 404
    assert client.post(url(foreign, slug=business.reseller.slug), valid()).status_code == 404
    assert not OutboxEntry.unscoped.exists()


def test_a_subtree_member_sees_only_their_businesses(member_client):
    reseller = ResellerFactory()
    root = BusinessFactory(reseller=reseller, type=Business.Type.ENTERPRISE_LOCATION,
                           tree_path="/10/")
    mine = BusinessFactory(reseller=reseller, tree_path="/10/11/")
    elsewhere = BusinessFactory(reseller=reseller, tree_path="/20/21/")
    client, _ = member_client(Role.MANAGER, reseller=reseller, limited_to=root)
    assert client.get(url(mine)).status_code == 200
    assert client.get(url(elsewhere)).status_code == 404
    assert client.post(url(elsewhere), valid()).status_code == 404


def test_a_viewer_has_no_add_form_and_cannot_post(member_client):
    client, membership = member_client(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    page = client.get(url(business)).content.decode()
    assert "Add media" not in page and 'method="post" action="/t/' not in page
    assert client.post(url(business), valid()).status_code == 403
    assert not OutboxEntry.unscoped.exists()


def test_adding_media_queues_an_upload_shown_as_pending(manager):
    client, business = manager
    response = client.post(url(business), valid())
    assert response.status_code == 302 and response.url == url(business)
    entry = OutboxEntry.unscoped.get()
    assert (entry.kind, entry.business) == (OutboxEntry.Kind.MEDIA_ADD, business)
    assert entry.payload == {"url": "https://images.example.com/front.jpg",
                             "mediaCategory": "EXTERIOR", "description": "The storefront",
                             "mediaFormat": "PHOTO"}
    page = client.get(url(business)).content.decode()
    assert "Uploads not in the gallery" in page and "Pending" in page
    assert "https://images.example.com/front.jpg" in page


def test_a_rejected_upload_shows_the_providers_message(manager):
    client, business = manager
    client.post(url(business), valid())
    OutboxEntry.unscoped.update(state=OutboxEntry.State.REJECTED, provider_code=2171,
                                provider_message="media[0].url is not a valid URL")
    page = client.get(url(business)).content.decode()
    assert "Rejected" in page and "media[0].url is not a valid URL" in page
    assert "code 2171" in page


def test_accepted_uploads_are_not_listed_as_waiting(manager):
    client, business = manager
    client.post(url(business), valid())
    OutboxEntry.unscoped.update(state=OutboxEntry.State.ACCEPTED)
    assert "Uploads not in the gallery" not in client.get(url(business)).content.decode()


@pytest.mark.parametrize("changes,message", [
    ({"url": ""}, "This field is required."),
    ({"url": "images.example.com/a.jpg"}, "valid http:// or https:// address"),
    ({"url": "ftp://images.example.com/a.jpg"}, "valid http:// or https:// address"),
    ({"url": "https:///a.jpg"}, "valid http:// or https:// address"),
    ({"url": "https://images.example.com/a b.jpg"}, "valid http:// or https:// address"),
    ({"url": "https://images.example.com/a.gif"}, "must be a JPG or PNG"),
    ({"url": "https://images.example.com/a.mp4"}, "must be a JPG or PNG"),
    ({"url": "https://videos.example.com/a.mov", "media_format": "VIDEO"}, "Only MP4 videos"),
    ({"url": "https://videos.example.com/a.jpg", "media_format": "VIDEO"}, "Only MP4 videos"),
])
def test_url_rules_are_reported_on_the_url_and_nothing_is_lost(manager, changes, message):
    client, business = manager
    response = client.post(url(business), valid(**changes))
    assert response.status_code == 200
    form = response.context["form"]
    assert list(form.errors) == ["url"]
    assert any(message in error for error in form.errors["url"])
    assert form["description"].value() == "The storefront"
    assert form["category"].value() == "EXTERIOR"
    assert not OutboxEntry.unscoped.exists()


@pytest.mark.parametrize("changes,field", [
    ({"category": "LOGO"}, "category"),
    ({"category": ""}, "category"),
    ({"media_format": "GIF"}, "media_format"),
    ({"description": "x" * 1001}, "description"),
])
def test_category_format_and_description_rules(manager, changes, field):
    client, business = manager
    form = client.post(url(business), valid(**changes)).context["form"]
    assert list(form.errors) == [field]
    assert not OutboxEntry.unscoped.exists()


@pytest.mark.parametrize("media_url,media_format", [
    ("https://images.example.com/a.JPG", "PHOTO"), ("http://images.example.com/a.jpeg", "PHOTO"),
    ("https://images.example.com/a.png?size=720", "PHOTO"),
    ("https://videos.example.com/a.mp4", "VIDEO"),
])
def test_accepted_formats(manager, media_url, media_format):
    client, business = manager
    response = client.post(url(business), valid(url=media_url, media_format=media_format))
    assert response.status_code == 302
    assert OutboxEntry.unscoped.get().payload["url"] == media_url


def test_the_gallery_is_paginated_and_its_query_count_does_not_grow(manager):
    client, business = manager
    add_item(business)

    def count(query=""):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url(business) + query)
        assert response.status_code == 200
        return len(queries), response

    few, _ = count()
    for _index in range(30):
        add_item(business)
        client.post(url(business), valid())
    OutboxEntry.unscoped.update(state=OutboxEntry.State.REJECTED, provider_message="no")
    many, response = count()
    assert few == many == 9  # with the bell's unread count
    assert len(response.context["page_obj"]) == 24
    assert "Page 1 of 2" in response.content.decode()

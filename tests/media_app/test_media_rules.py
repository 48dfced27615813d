"""The provider's media rules live in the service (`media_validate`): the page's form and the
API serializer only read the input, run the rules and show their messages on their fields."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import Role
from media_app.api.serializers import MediaAddSerializer
from media_app.forms import MediaAddForm
from media_app.services import media_add, media_validate
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory

PHOTO = {"url": "https://images.example.com/front.jpg", "media_format": "PHOTO",
         "category": "EXTERIOR", "description": "The storefront"}
NOT_AN_ADDRESS = "Enter a valid http:// or https:// address with a host name."


def refusal(**changes) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        media_validate(**{**PHOTO, **changes})
    return caught.value.message_dict


def codes(**changes) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        media_validate(**{**PHOTO, **changes})
    return {field: [error.code for error in errors]
            for field, errors in caught.value.error_dict.items()}


@pytest.mark.parametrize("changes,field,message", [
    ({"url": ""}, "url", "This field is required."),
    ({"url": "images.example.com/a.jpg"}, "url", NOT_AN_ADDRESS),
    ({"url": "ftp://images.example.com/a.jpg"}, "url", NOT_AN_ADDRESS),
    ({"url": "https:///a.jpg"}, "url", NOT_AN_ADDRESS),
    ({"url": "https://images.example.com/a b.jpg"}, "url", NOT_AN_ADDRESS),
    ({"url": "https://[images.example.com/a.jpg"}, "url", NOT_AN_ADDRESS),
    ({"url": "https://x.example/" + "a" * 2000 + ".jpg"}, "url",
     "Ensure this value has at most 2000 characters (it has 2022)."),
    ({"url": "https://images.example.com/a.gif"}, "url",
     "A photo must be a JPG or PNG file: the address must end in .jpg, .jpeg or .png."),
    ({"url": "https://videos.example.com/a.mov", "media_format": "VIDEO"}, "url",
     "Only MP4 videos are supported: the address must end in .mp4."),
    ({"media_format": "GIF"}, "media_format",
     "Select a valid choice. GIF is not one of the available choices."),
    ({"category": ""}, "category", "This field is required."),
    ({"category": "ROOF"}, "category",
     "Select a valid choice. ROOF is not one of the available choices."),
    ({"description": "x" * 1001}, "description",
     "Ensure this value has at most 1000 characters (it has 1001)."),
])
def test_each_rule_names_its_field(changes, field, message):
    assert refusal(**changes) == {field: [message]}


def test_the_codes_are_the_providers_where_it_has_one():
    assert codes(url="ftp://x.example/a.jpg") == {"url": ["2171"]}
    assert codes(url="https://x.example/a.mov", media_format="VIDEO") == {"url": ["2181"]}
    assert codes(url="https://x.example/a.gif") == {"url": ["photo_format"]}


def test_every_broken_rule_is_reported_at_once():
    assert list(refusal(url="https://x.example/a.gif", category="ROOF",
                        description="x" * 1001)) == ["category", "description", "url"]


def test_the_file_type_is_not_judged_without_a_known_format_or_a_readable_address():
    assert refusal(url="https://x.example/a.gif", media_format="GIF") == {
        "media_format": ["Select a valid choice. GIF is not one of the available choices."]}
    assert refusal(url="ftp://x.example/a.gif") == {"url": [NOT_AN_ADDRESS]}


def test_the_checked_values_are_those_to_queue():
    assert media_validate(url=" https://images.example.com/a.PNG?size=720 ",
                          media_format="PHOTO", category="TEAMS",
                          description=" The team ") == {
        "url": "https://images.example.com/a.PNG?size=720", "media_format": "PHOTO",
        "category": "TEAMS", "description": "The team"}
    assert media_validate(url="http://videos.example.com/tour.MP4", media_format="VIDEO",
                          category="INTERIOR")["description"] == ""


@pytest.mark.django_db
def test_the_queuing_service_sends_what_it_is_given_for_the_provider_to_judge(scope):
    business = BusinessFactory()
    scope(business.reseller)
    entry = media_add(tenant=business.reseller, actor=None, business=business,
                      url="https://x.example/a.gif", category="EXTERIOR", description="",
                      media_format="GIF")
    assert entry.payload["mediaFormat"] == "GIF"


def test_the_form_shows_the_services_messages_and_keeps_its_own():
    form = MediaAddForm({**PHOTO, "url": "https://x.example/a.gif", "category": "ROOF"})
    assert not form.is_valid()
    assert form.errors == {
        "category": ["Select a valid choice. ROOF is not one of the available choices."],
        "url": ["A photo must be a JPG or PNG file: the address must end in .jpg, .jpeg or "
                ".png."]}
    form = MediaAddForm({**PHOTO, "url": ""})
    assert not form.is_valid() and form.errors == {"url": ["This field is required."]}


def test_the_serializer_runs_the_services_rules():
    body = MediaAddSerializer(data={**PHOTO, "url": "https://x.example/a.mp4"})
    assert not body.is_valid()
    assert {field: [str(m) for m in messages] for field, messages in body.errors.items()} == {
        "url": ["A photo must be a JPG or PNG file: the address must end in .jpg, .jpeg or "
                ".png."]}
    body = MediaAddSerializer(data={**PHOTO, "description": " Front "})
    assert body.is_valid(), body.errors
    assert body.validated_data == {**PHOTO, "description": "Front"}


@pytest.mark.django_db
def test_an_unreadable_address_is_a_message_on_the_url_not_a_server_error(member_client,
                                                                           api_member):
    """An unclosed IPv6 bracket made the address parser raise, which used to be a 500."""
    bad = {**PHOTO, "url": "https://[images.example.com/a.jpg"}
    client, membership = member_client(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    page = client.post(reverse("business_media", args=[membership.reseller.slug,
                                                       business.remote_id]), bad)
    assert page.status_code == 200
    assert page.context["form"].errors == {"url": [NOT_AN_ADDRESS]}
    api, membership = api_member(Role.MANAGER, reseller=membership.reseller)
    response = api.post(reverse("api_business_media", args=[membership.reseller.slug,
                                                            business.remote_id]), bad)
    assert response.status_code == 400
    assert response.json()["fields"] == {"url": [NOT_AN_ADDRESS]}
    assert not OutboxEntry.unscoped.exists()

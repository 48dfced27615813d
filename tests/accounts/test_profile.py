"""Your profile: one's own name and time zone, the email shown, the password change and the API
tokens linked; reached from every page's header (there was no page for it)."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Role, User
from tests.factories import MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db

URL = "/accounts/profile/"


@pytest.fixture
def signed_in(member_client):
    client, membership = member_client(Role.VIEWER)
    return client, membership


def selected_zone(page: str) -> str:
    select = re.search(r'<select name="time_zone".*?</select>', page, re.S).group(0)
    found = re.search(r'<option value="([^"]*)"[^>]*selected', select)
    return found.group(1) if found else ""


def test_the_route_is_named_and_outside_any_tenant():
    assert reverse("profile") == URL


def test_get_shows_name_zone_email_and_the_links(signed_in):
    client, membership = signed_in
    other = MembershipFactory(user=membership.user, reseller=ResellerFactory(name="Second Co"))
    user = membership.user
    response = client.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1" in page and "Your profile" in page
    assert f'value="{user.full_name}"' in page
    assert user.email in page and 'name="email"' not in page  # shown, not editable
    assert f'href="{reverse("password_change")}"' in page
    for m in (membership, other):
        assert f'href="{reverse("api_tokens", args=[m.reseller.slug])}"' in page
    assert "Your API tokens for Second Co" in page
    # The zones: the portal's first, common ones grouped before the rest, as places.
    assert '<option value="" selected>The portal&#x27;s zone (UTC)</option>' in page
    assert page.index('<optgroup label="Common">') < page.index('<optgroup label="Africa">')
    assert re.search(r'<option value="America/New_York">New York \(UTC−0[45]:00\)</option>',
                     page)
    assert 'value="US/Eastern"' not in page and 'value="EST5EDT"' not in page


def test_every_page_links_the_profile_from_the_header(signed_in):
    client, membership = signed_in
    for url in (reverse("tenant_home", args=[membership.reseller.slug]), URL):
        page = client.get(url).content.decode()
        header = page[page.index('<header class="topbar">'):page.index("</header>")]
        assert f'href="{URL}"' in header and "Your profile" in header


def test_post_saves_name_and_zone_and_the_pages_follow_the_zone(signed_in):
    client, membership = signed_in
    response = client.post(URL, {"full_name": "  Ada Lovelace ", "time_zone": "Europe/Paris"})
    assert response.status_code == 302 and response.url == URL
    user = User.objects.get(pk=membership.user.pk)
    assert (user.full_name, user.time_zone) == ("Ada Lovelace", "Europe/Paris")
    page = client.get(URL).content.decode()
    assert "Your profile is saved." in page and selected_zone(page) == "Europe/Paris"
    # Back to the portal's zone.
    client.post(URL, {"full_name": "Ada Lovelace", "time_zone": ""})
    assert User.objects.get(pk=user.pk).time_zone == ""


def test_an_unknown_zone_is_refused_on_its_field_and_nothing_typed_is_lost(signed_in):
    client, membership = signed_in
    before = User.objects.get(pk=membership.user.pk)
    response = client.post(URL, {"full_name": "Grace Hopper", "time_zone": "Mars/Olympus"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Time zone: choose one from the list (“Mars/Olympus” is not one of them)." in page
    assert 'value="Grace Hopper"' in page  # the name typed is still there
    after = User.objects.get(pk=before.pk)
    assert (after.full_name, after.time_zone) == (before.full_name, before.time_zone)


def test_a_legacy_zone_name_is_refused_too(signed_in):
    client, membership = signed_in
    response = client.post(URL, {"full_name": "x", "time_zone": "US/Eastern"})
    assert response.status_code == 400
    assert User.objects.get(pk=membership.user.pk).time_zone == ""


def test_a_name_too_long_is_refused_naming_the_field(signed_in):
    client, membership = signed_in
    response = client.post(URL, {"full_name": "n" * 201, "time_zone": "Asia/Tokyo"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Full name: at most 200 characters (this one has 201)." in page
    assert selected_zone(page) == "Asia/Tokyo"  # the zone chosen is kept
    assert User.objects.get(pk=membership.user.pk).time_zone == ""


def test_a_stored_zone_outside_the_list_stays_chosen_and_can_be_kept(signed_in):
    client, membership = signed_in
    User.objects.filter(pk=membership.user.pk).update(time_zone="US/Eastern")
    assert selected_zone(client.get(URL).content.decode()) == "US/Eastern"
    assert client.post(URL, {"full_name": "x", "time_zone": "US/Eastern"}).status_code == 302


def test_anonymous_is_sent_to_sign_in(client):
    for response in (client.get(URL), client.post(URL, {"full_name": "x"})):
        assert response.status_code == 302
        assert response.url.startswith(reverse("login"))


def test_a_post_without_the_csrf_token_is_refused():
    membership = MembershipFactory()
    client = Client(enforce_csrf_checks=True)
    client.force_login(membership.user)
    response = client.post(URL, {"full_name": "Forged", "time_zone": "Asia/Tokyo"})
    assert response.status_code == 403
    assert User.objects.get(pk=membership.user.pk).full_name != "Forged"
    # With the token of the page it goes through.
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                      client.get(URL).content.decode()).group(1)
    response = client.post(URL, {"full_name": "Real", "time_zone": "Asia/Tokyo",
                                 "csrfmiddlewaretoken": token})
    assert response.status_code == 302


def test_a_member_of_no_reseller_has_a_profile_too(client):
    user = User.objects.create_user(email="alone@example.com", password="x" * 12)
    client.force_login(user)
    page = client.get(URL).content.decode()
    assert "Change your password" in page and "API tokens for" not in page

"""The API tokens page: every member's own tokens, created once, revoked with confirmation."""

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, Role
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db



def url(membership, *args, name="api_tokens"):
    return reverse(name, args=[membership.reseller.slug, *args])


def create(client, membership, name="portal", role=Role.VIEWER):
    return client.post(url(membership), {"name": name, "role": role})


def plaintext_of(response):
    match = re.search(r'value="(rpt_[^"]+)"', response.content.decode())
    return match.group(1) if match else None


@pytest.mark.parametrize("role", [Role.VIEWER, Role.MANAGER, Role.OWNER])
def test_every_member_creates_a_token_shown_once(member_client, role):
    client, membership = member_client(role)
    assert client.get(url(membership)).status_code == 200
    response = create(client, membership, role=role)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    plaintext = plaintext_of(response)
    assert plaintext and "shown only this once" in response.content.decode()
    token = ApiToken.unscoped.get(user=membership.user)
    assert token.role == role and token.key_hash != plaintext
    listing = client.get(url(membership)).content.decode()
    assert plaintext not in listing and token.key_hint in listing and "portal" in listing
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert api.get(reverse("api_business_list",
                           args=[membership.reseller.slug])).status_code == 200


def test_a_token_role_cannot_exceed_the_members(member_client):
    client, membership = member_client(Role.MANAGER)
    response = create(client, membership, role=Role.OWNER)
    assert response.status_code == 400
    assert not ApiToken.unscoped.filter(user=membership.user).exists()


def test_revoke_asks_then_the_token_gets_401(member_client):
    client, membership = member_client(Role.VIEWER)
    plaintext = plaintext_of(create(client, membership))
    token = ApiToken.unscoped.get(user=membership.user)
    page = client.get(url(membership, token.pk, name="api_token_revoke"))
    assert page.status_code == 200 and "cannot be undone" in page.content.decode()
    response = client.post(url(membership, token.pk, name="api_token_revoke"))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert api.get(reverse("api_business_list",
                           args=[membership.reseller.slug])).status_code == 401
    assert "revoked" in client.get(url(membership)).content.decode()


def test_another_members_token_is_404(member_client):
    client, membership = member_client(Role.OWNER)
    colleague = MembershipFactory(reseller=membership.reseller, role=Role.VIEWER)
    elsewhere = MembershipFactory(role=Role.OWNER)
    from accounts.tokens import api_token_create
    from portal.tenancy import tenant_scope

    tokens = []
    for other in (colleague, elsewhere):
        with tenant_scope(other.reseller):
            tokens.append(api_token_create(tenant=other.reseller, actor=None, user=other.user,
                                           name="theirs", role=Role.VIEWER)[0])
    for token in tokens:
        assert client.get(url(membership, token.pk,
                              name="api_token_revoke")).status_code == 404
        assert client.post(url(membership, token.pk,
                               name="api_token_revoke")).status_code == 404
        token.refresh_from_db()
        assert token.revoked_at is None
    assert "theirs" not in client.get(url(membership)).content.decode()


def test_anonymous_is_sent_to_login_and_non_members_get_404(client, member_client):
    membership = MembershipFactory()
    response = client.get(url(membership))
    assert response.status_code == 302 and "login" in response["Location"]
    other_client, _ = member_client(Role.OWNER)
    assert other_client.get(url(membership)).status_code == 404
    assert other_client.post(url(membership), {"name": "x", "role": "viewer"}).status_code == 404

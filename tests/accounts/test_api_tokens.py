"""Personal API tokens: the `apitoken_create` command and how tokens authenticate."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, Role
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db



def test_apitoken_create_prints_a_working_token_stored_only_hashed():
    membership = MembershipFactory(role=Role.MANAGER)
    out = io.StringIO()
    call_command("apitoken_create", user=membership.user.email,
                 reseller=membership.reseller.slug, role="viewer", stdout=out)
    printed = json.loads(out.getvalue())
    plaintext = printed["token"]
    assert plaintext.startswith(ApiToken.PREFIX) and printed["role"] == "viewer"
    token = ApiToken.unscoped.get(pk=printed["id"])
    assert token.key_hash != plaintext and plaintext not in token.key_hash
    assert plaintext not in json.dumps(list(ApiToken.unscoped.values()), default=str)
    assert plaintext.startswith(token.key_hint)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    slug = membership.reseller.slug
    assert client.get(reverse("api_sync_run_list", args=[slug])).status_code == 200
    # A viewer token of a manager cannot write.
    assert client.post(reverse("api_sync_run_list", args=[slug]), {},
                       format="json").status_code == 403


def test_a_revoked_token_gets_401(api_member):
    from accounts.tokens import api_token_revoke
    from portal.tenancy import tenant_scope

    client, membership = api_member()
    url = reverse("api_change_list", args=[membership.reseller.slug])
    assert client.get(url).status_code == 200
    with tenant_scope(membership.reseller):
        token = ApiToken.objects.get(user=membership.user)
        api_token_revoke(tenant=membership.reseller, actor=None, token=token)
    assert client.get(url).status_code == 401

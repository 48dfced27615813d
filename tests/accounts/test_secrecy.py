"""The provider key never reaches a rendered page of the portal or the admin."""

import pytest
from django.urls import reverse

from accounts.models import Role
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db

KEY = "live-provider-key-abcdef-SENTINEL-7788"


@pytest.fixture
def reseller():
    return ResellerFactory(api_key=KEY)


def assert_key_absent(html: str) -> None:
    assert KEY not in html
    assert "SENTINEL" not in html
    assert "abcdef" not in html


def test_portal_pages_never_show_the_key(client, reseller):
    membership = MembershipFactory(reseller=reseller, role=Role.OWNER)
    client.force_login(membership.user)
    for url in [reverse("home"), reverse("reseller_picker"),
                reverse("tenant_home", args=[reseller.slug])]:
        response = client.get(url, follow=True)
        assert response.status_code == 200
        assert_key_absent(response.content.decode())


def test_admin_pages_never_show_the_key(client, reseller):
    staff = UserFactory(is_staff=True, is_superuser=True)
    BusinessFactory(reseller=reseller)
    MembershipFactory(reseller=reseller)
    client.force_login(staff)
    urls = [reverse("admin:index"), reverse("admin:accounts_reseller_changelist"),
            reverse("admin:accounts_reseller_change", args=[reseller.pk]),
            reverse("admin:accounts_reseller_history", args=[reseller.pk]),
            reverse("admin:accounts_membership_changelist"),
            reverse("admin:accounts_business_changelist"),
            reverse("admin:accounts_auditevent_changelist")]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_key_absent(response.content.decode())
    change = client.get(reverse("admin:accounts_reseller_change", args=[reseller.pk]))
    assert "••••7788" in change.content.decode()


def test_admin_rotate_action_reencrypts(client, reseller, settings):
    from cryptography.fernet import Fernet

    staff = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(staff)
    settings.API_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode(),
                                        settings.API_KEY_ENCRYPTION_KEYS[0]]
    before = reseller.api_key_encrypted
    response = client.post(reverse("admin:accounts_reseller_changelist"),
                           {"action": "reencrypt_api_keys", "_selected_action": [reseller.pk]},
                           follow=True)
    assert "Re-encrypted 1 key(s)" in response.content.decode()
    reseller.refresh_from_db()
    assert reseller.api_key_encrypted != before
    assert reseller.api_key().value == KEY

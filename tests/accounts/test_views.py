import pytest
from django.urls import reverse

from accounts.models import Role
from tests.factories import DEFAULT_PASSWORD, BusinessFactory, MembershipFactory

pytestmark = pytest.mark.django_db


def test_login_with_email_and_password(client):
    membership = MembershipFactory()
    response = client.post(reverse("login"), {"username": membership.user.email,
                                              "password": DEFAULT_PASSWORD})
    assert response.status_code == 302
    response = client.get(reverse("home"))
    assert response.url == reverse("tenant_home", args=[membership.reseller.slug])


def test_wrong_password_shows_an_error(client):
    membership = MembershipFactory()
    response = client.post(reverse("login"), {"username": membership.user.email,
                                              "password": "wrong"})
    assert response.status_code == 200
    assert "correct email and password" in response.content.decode()


def test_anonymous_users_are_sent_to_login(client):
    membership = MembershipFactory()
    response = client.get(reverse("tenant_home", args=[membership.reseller.slug]))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_member_sees_their_reseller(client):
    membership = MembershipFactory(role=Role.VIEWER)
    BusinessFactory(reseller=membership.reseller)
    client.force_login(membership.user)
    response = client.get(reverse("tenant_home", args=[membership.reseller.slug]))
    assert response.status_code == 200
    assert membership.reseller.name in response.content.decode()


def test_another_tenants_page_is_404(client):
    mine, theirs = MembershipFactory(), MembershipFactory()
    client.force_login(mine.user)
    response = client.get(reverse("tenant_home", args=[theirs.reseller.slug]))
    assert response.status_code == 404


def test_unknown_reseller_is_404_like_another_tenant(client):
    membership = MembershipFactory()
    client.force_login(membership.user)
    assert client.get(reverse("tenant_home", args=["no-such-agency"])).status_code == 404


def test_viewer_cannot_write_where_a_manager_can(client):
    viewer = MembershipFactory(role=Role.VIEWER)
    manager = MembershipFactory(role=Role.MANAGER, reseller=viewer.reseller)
    url = reverse("tenant_home", args=[viewer.reseller.slug])
    client.force_login(viewer.user)
    assert client.post(url).status_code == 403
    client.force_login(manager.user)
    # The home page takes no POST: a manager passes the role check and gets 405.
    assert client.post(url).status_code == 405


def test_switcher_lists_only_the_users_resellers(client):
    first = MembershipFactory()
    second = MembershipFactory(user=first.user)
    other = MembershipFactory()
    client.force_login(first.user)
    assert client.get(reverse("home")).url == reverse("reseller_picker")
    page = client.get(reverse("tenant_home", args=[first.reseller.slug])).content.decode()
    assert first.reseller.name in page and second.reseller.name in page
    assert other.reseller.name not in page


def test_subtree_member_counts_only_their_subtree(client):
    membership = MembershipFactory()
    root = BusinessFactory(reseller=membership.reseller, type="Enterprise-Location",
                           tree_path="/1/")
    BusinessFactory(reseller=membership.reseller, parent=root, tree_path="/1/2/")
    BusinessFactory(reseller=membership.reseller, tree_path="/9/")
    membership.limited_to = root
    membership.save()
    client.force_login(membership.user)
    response = client.get(reverse("tenant_home", args=[membership.reseller.slug]))
    assert response.context["business_count"] == 2


def test_sign_in_and_failed_sign_in_are_audited(client):
    from accounts.models import AuditEvent

    membership = MembershipFactory()
    client.post(reverse("login"), {"username": membership.user.email, "password": "nope"})
    client.post(reverse("login"), {"username": membership.user.email,
                                   "password": DEFAULT_PASSWORD})
    failed = AuditEvent.unscoped.get(action="auth.sign_in_failed")
    assert failed.summary["email"] == membership.user.email
    assert "nope" not in str(failed.summary)
    assert AuditEvent.unscoped.get(action="auth.signed_in").actor == membership.user


def test_behind_the_tls_proxy_the_audit_log_records_the_clients_address(client, settings):
    """The same address sign-in lockout counts: the one the proxy appended, not the proxy's."""
    from accounts.models import AuditEvent

    settings.BEHIND_TLS_PROXY = True
    membership = MembershipFactory()
    headers = {"HTTP_X_FORWARDED_FOR": "203.0.113.9, 198.51.100.7", "REMOTE_ADDR": "10.0.0.2"}
    client.post(reverse("login"), {"username": membership.user.email, "password": "nope"},
                **headers)
    client.post(reverse("login"), {"username": membership.user.email,
                                   "password": DEFAULT_PASSWORD}, **headers)
    assert AuditEvent.unscoped.get(action="auth.sign_in_failed").summary["ip"] == "198.51.100.7"
    assert AuditEvent.unscoped.get(action="auth.signed_in").summary["ip"] == "198.51.100.7"


def test_password_reset_sends_a_link_that_sets_a_new_password(client, mailoutbox):
    import re

    membership = MembershipFactory()
    response = client.post(reverse("password_reset"), {"email": membership.user.email})
    assert response.status_code == 302
    assert len(mailoutbox) == 1
    link = re.search(r"/accounts/reset/\S+/\S+/", mailoutbox[0].body).group(0)
    form_url = client.get(link).url  # Django swaps the token for a session-held one
    response = client.post(form_url, {"new_password1": "a-brand-new-passphrase",
                                      "new_password2": "a-brand-new-passphrase"})
    assert response.status_code == 302
    membership.user.refresh_from_db()
    assert membership.user.check_password("a-brand-new-passphrase")


def test_password_reset_for_an_unknown_address_reveals_nothing(client, mailoutbox):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302
    assert mailoutbox == []

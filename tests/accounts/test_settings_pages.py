"""Settings pages (owners only): the provider connection and its test, members, the audit log."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import credentials
from accounts.models import AuditEvent, Membership, Reseller, Role, User
from accounts.services import audit_record
from sandbox.seeding import seed_partner
from tests.factories import (
    DEFAULT_PASSWORD,
    BusinessFactory,
    MembershipFactory,
    ResellerFactory,
    UserFactory,
)

KEY = "settings-pages-key-SENTINEL-4242"
NEW_KEY = "replacement-key-OTHERSECRET-9876"


def url(name, reseller, *args):
    return reverse(name, args=[reseller.slug, *args])


def html_of(response) -> str:
    return response.content.decode()


def assert_no_key(text: str, *keys: str) -> None:
    for key in keys or (KEY, NEW_KEY):
        assert key not in text
        # Not even the part before the last four characters.
        assert key[:-4] not in text


def connection_data(reseller, **changes):
    data = {"provider_base_url": reseller.provider_base_url,
            "account_number": reseller.account_number, "api_key": "",
            "rate_limit_count": reseller.rate_limit_count,
            "rate_limit_seconds": reseller.rate_limit_seconds}
    data.update(changes)
    return data


@pytest.fixture
def reseller(db):
    return ResellerFactory(api_key=KEY, provider_base_url="http://127.0.0.1:9/sandbox")


@pytest.fixture
def owner(member_client, reseller):
    client, membership = member_client(Role.OWNER, reseller=reseller)
    return client, membership



# -- access ------------------------------------------------------------------------------------


def _pages(reseller, member):
    return [url("settings_connection", reseller), url("settings_members", reseller),
            url("settings_audit", reseller), url("settings_member_edit", reseller, member.pk),
            url("settings_member_remove", reseller, member.pk)]


@pytest.mark.django_db
def test_owners_open_every_settings_page(owner, reseller):
    client, membership = owner
    other = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    for page in _pages(reseller, other):
        assert client.get(page).status_code == 200, page
    assert url("settings_connection", reseller) in html_of(client.get(url("sync_run_list",
                                                                          reseller)))


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Role.MANAGER, Role.VIEWER])
def test_managers_and_viewers_get_403_on_reads_and_writes(member_client, reseller, role):
    client, membership = member_client(role, reseller=reseller)
    other = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    for page in _pages(reseller, other):
        assert client.get(page).status_code == 403, page
        assert client.post(page, {"role": Role.OWNER}).status_code == 403, page
    assert client.post(url("settings_test_connection", reseller)).status_code == 403
    assert client.post(url("settings_connection", reseller),
                       connection_data(reseller, api_key="stolen-key-1234")).status_code == 403
    assert client.post(url("settings_members", reseller),
                       {"email": "x@example.com", "role": Role.OWNER}).status_code == 403
    other.refresh_from_db()
    reseller.refresh_from_db()
    assert other.role == Role.VIEWER
    assert reseller.api_key_last4 == KEY[-4:]
    assert not User.objects.filter(email="x@example.com").exists()
    # And no Settings link in their navigation (which owners do get).
    page = html_of(client.get(url("sync_run_list", reseller)))
    assert url("settings_connection", reseller) not in page


@pytest.mark.django_db
def test_anonymous_users_are_sent_to_login(client, reseller):
    other = MembershipFactory(reseller=reseller)
    for page in [*_pages(reseller, other), url("settings_test_connection", reseller)]:
        for method in (client.get, client.post):
            response = method(page)
            assert response.status_code == 302, page
            assert response.url.startswith(reverse("login"))


@pytest.mark.django_db
def test_an_owner_of_another_tenant_gets_404(member_client, reseller):
    client, _ = member_client(Role.OWNER)  # owner of some other reseller
    member = MembershipFactory(reseller=reseller)
    for page in [*_pages(reseller, member), url("settings_test_connection", reseller)]:
        assert client.get(page).status_code == 404, page
        assert client.post(page).status_code == 404, page


@pytest.mark.django_db
def test_another_tenants_member_is_404_under_my_slug(owner, reseller):
    client, _ = owner
    theirs = MembershipFactory(role=Role.OWNER)
    for page in (url("settings_member_edit", reseller, theirs.pk),
                 url("settings_member_remove", reseller, theirs.pk)):
        assert client.get(page).status_code == 404
        assert client.post(page, {"role": Role.VIEWER}).status_code == 404
    assert Membership.unscoped.filter(pk=theirs.pk, role=Role.OWNER).exists()
    missing = url("settings_member_edit", reseller, 999_999)
    assert client.get(missing).status_code == 404


# -- the provider connection -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_key_is_never_shown_only_its_mask_and_fingerprint(owner, reseller):
    client, _ = owner
    page = html_of(client.get(url("settings_connection", reseller)))
    assert_no_key(page, KEY)
    assert f"••••{KEY[-4:]}" in page
    assert reseller.api_key_fingerprint in page
    assert 'name="api_key"' in page
    assert re.search(r'<input type="password" name="api_key"(?![^>]*value=)', page)


@pytest.mark.django_db
def test_saving_a_new_key_replaces_it_and_never_shows_or_audits_it(owner, reseller):
    client, _ = owner
    response = client.post(url("settings_connection", reseller),
                           connection_data(reseller, api_key=NEW_KEY), follow=True)
    assert response.status_code == 200
    reseller.refresh_from_db()
    assert reseller.api_key().value == NEW_KEY
    assert reseller.api_key_fingerprint == credentials.fingerprint(NEW_KEY)
    page = html_of(response)
    assert_no_key(page)
    assert f"••••{NEW_KEY[-4:]}" in page
    assert "Saved the connection settings (API key)" in page
    event = AuditEvent.unscoped.get(reseller=reseller, action="reseller.connection_updated")
    assert event.summary["fields"] == ["api_key"]
    assert event.summary["key"] == f"••••{NEW_KEY[-4:]}"
    for stored in AuditEvent.unscoped.filter(reseller=reseller):
        assert_no_key(repr(stored.summary))
    audit_page = html_of(client.get(url("settings_audit", reseller)))
    assert "Provider connection changed" in audit_page
    assert_no_key(audit_page)


@pytest.mark.django_db
def test_an_empty_key_field_keeps_the_stored_key(owner, reseller):
    client, _ = owner
    response = client.post(url("settings_connection", reseller),
                           connection_data(reseller, rate_limit_count=7, rate_limit_seconds=2))
    assert response.status_code == 302
    reseller.refresh_from_db()
    assert reseller.api_key().value == KEY
    assert (reseller.rate_limit_count, reseller.rate_limit_seconds) == (7, 2)
    event = AuditEvent.unscoped.get(reseller=reseller, action="reseller.connection_updated")
    assert event.summary == {"fields": ["rate_limit_count", "rate_limit_seconds"]}


@pytest.mark.django_db
def test_saving_unchanged_settings_records_nothing(owner, reseller):
    client, _ = owner
    response = client.post(url("settings_connection", reseller),
                           connection_data(reseller, api_key=KEY), follow=True)
    assert "Nothing changed." in html_of(response)
    assert not AuditEvent.unscoped.filter(action="reseller.connection_updated").exists()


@pytest.mark.django_db
def test_a_new_key_clears_the_rejected_flag(owner, reseller):
    client, _ = owner
    Reseller.objects.filter(pk=reseller.pk).update(status=Reseller.Status.KEY_REJECTED)
    assert "The provider rejected this key" in html_of(client.get(url("settings_connection",
                                                                      reseller)))
    client.post(url("settings_connection", reseller), connection_data(reseller, api_key=NEW_KEY))
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.ACTIVE


@pytest.mark.django_db
def test_errors_are_shown_per_field_and_nothing_is_lost(owner, reseller):
    client, _ = owner
    before = (reseller.provider_base_url, reseller.account_number, reseller.api_key_encrypted,
              reseller.rate_limit_count)
    response = client.post(url("settings_connection", reseller), {
        "provider_base_url": "ftp://files.example.com/",
        "account_number": "0",
        "api_key": NEW_KEY,
        "rate_limit_count": "-5",
        "rate_limit_seconds": "30",
    })
    assert response.status_code == 400
    form = response.context["form"]
    assert set(form.errors) == {"provider_base_url", "account_number", "rate_limit_count"}
    assert "greater than or equal to 1" in form.errors["account_number"][0]
    page = html_of(response)
    # The fields keep what was typed, except the key, which is never echoed back.
    assert 'value="ftp://files.example.com/"' in page
    assert 'name="rate_limit_seconds" value="30"' in page
    assert "the key you typed was not kept" in page
    assert_no_key(page)
    reseller.refresh_from_db()
    assert (reseller.provider_base_url, reseller.account_number, reseller.api_key_encrypted,
            reseller.rate_limit_count) == before
    assert not AuditEvent.unscoped.filter(action="reseller.connection_updated").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("base_url", "message"), [
    ("https://user:pw@127.0.0.1/sandbox", "must not carry a user name or password"),
    ("https://127.0.0.1:8443/sandbox", "private or loopback network"),
])
def test_the_base_url_goes_through_the_outbound_check(owner, reseller, settings, base_url,
                                                      message):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    client, _ = owner
    response = client.post(url("settings_connection", reseller),
                           connection_data(reseller, provider_base_url=base_url))
    assert response.status_code == 400
    assert message in response.context["form"].errors["provider_base_url"][0]
    reseller.refresh_from_db()
    assert reseller.provider_base_url == "http://127.0.0.1:9/sandbox"


@pytest.mark.django_db
def test_test_connection_is_post_only(owner, reseller):
    client, _ = owner
    assert client.get(url("settings_test_connection", reseller)).status_code == 405


@pytest.mark.django_db
def test_test_connection_without_a_key_says_so(owner, reseller):
    client, _ = owner
    Reseller.objects.filter(pk=reseller.pk).update(api_key_encrypted="", api_key_last4="",
                                                   api_key_fingerprint="")
    page = html_of(client.post(url("settings_test_connection", reseller), follow=True))
    assert "No API key is stored yet" in page


@pytest.mark.django_db
def test_test_connection_reports_an_unsafe_base_url(owner, reseller, settings):
    client, _ = owner
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    page = html_of(client.post(url("settings_test_connection", reseller), follow=True))
    assert "The base URL cannot be used" in page
    assert "private or loopback network" in page


@pytest.mark.django_db
def test_test_connection_reports_a_key_that_cannot_be_decrypted(owner, reseller, settings):
    from cryptography.fernet import Fernet

    client, _ = owner
    settings.API_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    page = html_of(client.post(url("settings_test_connection", reseller), follow=True))
    assert "The stored key cannot be read" in page
    assert "Enter the key again" in page


@pytest.mark.django_db
def test_test_connection_reports_an_unreachable_provider(owner, reseller, settings):
    settings.PROVIDER_MAX_RETRIES = 0
    client, _ = owner
    # Port 9 (discard) on loopback: nothing listens, the connection is refused.
    page = html_of(client.post(url("settings_test_connection", reseller), follow=True))
    assert "could not be reached or failed" in page
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.ACTIVE


# -- test connection against the live sandbox --------------------------------------------------


@pytest.fixture
def sandboxed(live_server, settings, tmp_path, member_client):
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    seeded = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    client, _ = member_client(Role.OWNER, reseller=reseller)
    return client, reseller


def _test_connection(client, reseller):
    response = client.post(url("settings_test_connection", reseller), follow=True)
    assert response.status_code == 200
    return html_of(response)


@pytest.mark.django_db(transaction=True)
def test_test_connection_with_the_right_key_is_ok(sandboxed):
    client, reseller = sandboxed
    page = _test_connection(client, reseller)
    assert "The provider accepted the key" in page
    assert re.search(rf"account {reseller.account_number} has \d+ business", page)
    assert_no_key(page, KEY)
    event = AuditEvent.unscoped.get(reseller=reseller, action="reseller.connection_tested")
    assert event.summary["outcome"] == "ok"
    assert_no_key(repr(event.summary), KEY)


@pytest.mark.django_db(transaction=True)
def test_test_connection_with_a_wrong_key_is_rejected_1161(sandboxed):
    client, reseller = sandboxed
    reseller.set_api_key("a-wrong-key-WRONGSECRET-0000")
    reseller.save()
    page = _test_connection(client, reseller)
    assert "The provider rejected the key (code 1161)" in page
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.KEY_REJECTED
    event = AuditEvent.unscoped.get(reseller=reseller, action="reseller.connection_tested")
    assert (event.summary["outcome"], event.summary["code"]) == ("auth_error", 1161)
    assert_no_key(page, "a-wrong-key-WRONGSECRET-0000")


@pytest.mark.django_db(transaction=True)
def test_a_working_key_makes_a_rejected_reseller_active_again(sandboxed):
    client, reseller = sandboxed
    Reseller.objects.filter(pk=reseller.pk).update(status=Reseller.Status.KEY_REJECTED)
    page = _test_connection(client, reseller)
    assert "The provider accepted the key" in page
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.ACTIVE


@pytest.mark.django_db(transaction=True)
def test_test_connection_with_an_unknown_account_is_not_found(sandboxed):
    client, reseller = sandboxed
    Reseller.objects.filter(pk=reseller.pk).update(account_number=123)
    page = _test_connection(client, reseller)
    assert "the provider does not know account 123" in page
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.ACTIVE


# -- members -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_member_list_shows_roles_and_subtree_limits(owner, reseller):
    client, membership = owner
    branch = BusinessFactory(reseller=reseller, type="Enterprise-Location", name="North Branch")
    limited = MembershipFactory(reseller=reseller, role=Role.VIEWER, limited_to=branch)
    outsider = MembershipFactory()  # another tenant's member: not listed
    page = html_of(client.get(url("settings_members", reseller)))
    assert membership.user.email in page and limited.user.email in page
    assert outsider.user.email not in page
    assert "North Branch" in page
    assert url("settings_member_edit", reseller, limited.pk) in page
    assert url("settings_member_remove", reseller, limited.pk) in page


@pytest.mark.django_db
def test_inviting_a_new_person_creates_the_user_and_membership_and_mails_them(
        owner, reseller, mailoutbox):
    client, membership = owner
    branch = BusinessFactory(reseller=reseller, type="Enterprise-Location")
    response = client.post(url("settings_members", reseller), {
        "email": "New.Person@Example.com", "role": Role.MANAGER, "limited_to": branch.remote_id})
    assert response.status_code == 302
    user = User.objects.get(email="new.person@example.com")
    assert not user.has_usable_password()
    invited = Membership.unscoped.get(reseller=reseller, user=user)
    assert (invited.role, invited.limited_to) == (Role.MANAGER, branch)
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == ["new.person@example.com"]
    assert reseller.name in mail.subject
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.body).group(1)
    actions = set(AuditEvent.unscoped.filter(reseller=reseller).values_list("action", flat=True))
    assert {"membership.created", "membership.invited"} <= actions

    # The link lets them choose a password, then sign in.
    client.logout()
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0]
    client.post(set_url, {"new_password1": "a-long-new-password-77",
                          "new_password2": "a-long-new-password-77"})
    user.refresh_from_db()
    assert user.check_password("a-long-new-password-77")


@pytest.mark.django_db
def test_inviting_an_existing_user_keeps_their_password(owner, reseller, mailoutbox):
    client, _ = owner
    existing = MembershipFactory(role=Role.OWNER).user  # a member of another reseller
    client.post(url("settings_members", reseller), {"email": existing.email,
                                                   "role": Role.VIEWER})
    assert Membership.unscoped.filter(reseller=reseller, user=existing, role=Role.VIEWER).exists()
    existing.refresh_from_db()
    assert existing.check_password(DEFAULT_PASSWORD)
    assert len(mailoutbox) == 1
    assert f"/t/{reseller.slug}/" in mailoutbox[0].body
    assert "/accounts/reset/" not in mailoutbox[0].body


@pytest.mark.django_db
def test_inviting_a_member_again_is_a_field_error(owner, reseller, mailoutbox):
    client, _ = owner
    member = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    response = client.post(url("settings_members", reseller), {"email": member.user.email,
                                                              "role": Role.OWNER})
    assert response.status_code == 400
    assert "already a member" in response.context["form"].errors["email"][0]
    member.refresh_from_db()
    assert member.role == Role.VIEWER
    assert mailoutbox == []


@pytest.mark.django_db
def test_a_subtree_limit_is_looked_up_inside_the_tenant(owner, reseller, mailoutbox):
    client, _ = owner
    theirs = BusinessFactory(reseller=ResellerFactory(), type="Enterprise-Location")
    response = client.post(url("settings_members", reseller), {
        "email": "someone@example.com", "role": Role.VIEWER, "limited_to": theirs.remote_id})
    assert response.status_code == 400
    assert f"no business with id {theirs.remote_id}" in response.context["form"].errors[
        "limited_to"][0]
    assert not User.objects.filter(email="someone@example.com").exists()
    assert mailoutbox == []


@pytest.mark.django_db
def test_changing_a_role_and_limit(owner, reseller):
    client, _ = owner
    member = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    branch = BusinessFactory(reseller=reseller, type="Enterprise-Location", name="East")
    edit = url("settings_member_edit", reseller, member.pk)
    page = html_of(client.get(edit))
    assert member.user.email in page
    assert f'<option value="{branch.remote_id}">East' in page  # offered as a limit
    response = client.post(edit, {"role": Role.MANAGER, "limited_to": branch.remote_id})
    assert response.status_code == 302
    member.refresh_from_db()
    assert (member.role, member.limited_to) == (Role.MANAGER, branch)
    event = AuditEvent.unscoped.get(reseller=reseller, action="membership.updated")
    assert event.summary == {"user": member.user.email, "role": "manager",
                             "limited_to": branch.remote_id}
    # Clearing the limit.
    client.post(edit, {"role": Role.MANAGER, "limited_to": ""})
    member.refresh_from_db()
    assert member.limited_to is None


@pytest.mark.django_db
def test_the_last_owner_cannot_be_demoted(owner, reseller):
    client, membership = owner
    edit = url("settings_member_edit", reseller, membership.pk)
    response = client.post(edit, {"role": Role.MANAGER})
    assert response.status_code == 400
    assert "is the last owner" in response.context["form"].errors["role"][0]
    membership.refresh_from_db()
    assert membership.role == Role.OWNER
    assert not AuditEvent.unscoped.filter(action="membership.updated").exists()


@pytest.mark.django_db
def test_an_owner_can_step_down_when_another_owner_remains(owner, reseller):
    client, membership = owner
    MembershipFactory(reseller=reseller, role=Role.OWNER)
    response = client.post(url("settings_member_edit", reseller, membership.pk),
                           {"role": Role.MANAGER})
    assert response.status_code == 302
    assert response.url == reverse("tenant_home", args=[reseller.slug])
    membership.refresh_from_db()
    assert membership.role == Role.MANAGER
    assert client.get(url("settings_members", reseller)).status_code == 403


@pytest.mark.django_db
def test_removing_a_member_asks_first_naming_them(owner, reseller):
    client, _ = owner
    member = MembershipFactory(reseller=reseller, role=Role.MANAGER,
                               user=UserFactory(full_name="Jane Example"))
    remove = url("settings_member_remove", reseller, member.pk)
    page = html_of(client.get(remove))
    assert f"Remove Jane Example ({member.user.email}) from {reseller.name}?" in page
    assert Membership.unscoped.filter(pk=member.pk).exists()
    response = client.post(remove)
    assert response.status_code == 302
    assert not Membership.unscoped.filter(pk=member.pk).exists()
    assert User.objects.filter(pk=member.user.pk).exists()
    event = AuditEvent.unscoped.get(reseller=reseller, action="membership.removed")
    assert event.summary["user"] == member.user.email


@pytest.mark.django_db
def test_the_last_owner_cannot_be_removed(owner, reseller):
    client, membership = owner
    response = client.post(url("settings_member_remove", reseller, membership.pk))
    assert response.status_code == 400
    assert "is the last owner" in html_of(response)
    assert Membership.unscoped.filter(pk=membership.pk).exists()
    assert not AuditEvent.unscoped.filter(action="membership.removed").exists()


@pytest.mark.django_db
def test_an_owner_who_removes_themselves_leaves(owner, reseller):
    client, membership = owner
    MembershipFactory(reseller=reseller, role=Role.OWNER)
    response = client.post(url("settings_member_remove", reseller, membership.pk))
    assert response.url == reverse("home")
    assert client.get(url("settings_connection", reseller)).status_code == 404


# -- audit log ---------------------------------------------------------------------------------


def _event(reseller, actor, action, *, days_ago=0, **summary):
    event = audit_record(tenant=reseller, actor=actor, action=action, summary=summary)
    AuditEvent.unscoped.filter(pk=event.pk).update(
        created_at=timezone.now() - datetime.timedelta(days=days_ago))
    return event


@pytest.mark.django_db
def test_the_audit_log_is_newest_first_and_only_this_tenants(owner, reseller):
    client, membership = owner
    _event(reseller, membership.user, "test.older", days_ago=3, note="older-one")
    _event(reseller, membership.user, "test.newer", days_ago=1, note="newer-one")
    _event(ResellerFactory(), None, "test.theirs", note="their-event")
    page = html_of(client.get(url("settings_audit", reseller)))
    assert page.index("newer-one") < page.index("older-one")
    assert "their-event" not in page and "test.theirs" not in page


@pytest.mark.django_db
def test_the_audit_log_filters(owner, reseller):
    client, membership = owner
    alice = UserFactory(email="alice@agency.test")
    bob = UserFactory(email="bob@agency.test")
    _event(reseller, alice, "membership.updated", days_ago=10, note="alice-old")
    _event(reseller, alice, "reseller.connection_updated", days_ago=1, note="alice-new")
    _event(reseller, bob, "membership.updated", days_ago=1, note="bob-new")
    audit = url("settings_audit", reseller)

    page = html_of(client.get(audit, {"action": "membership.updated"}))
    assert "alice-old" in page and "bob-new" in page and "alice-new" not in page

    page = html_of(client.get(audit, {"actor": "ALICE@"}))
    assert "alice-old" in page and "alice-new" in page and "bob-new" not in page

    since = (timezone.now() - datetime.timedelta(days=3)).date().isoformat()
    page = html_of(client.get(audit, {"date_from": since, "actor": "alice"}))
    assert "alice-new" in page and "alice-old" not in page

    until = (timezone.now() - datetime.timedelta(days=5)).date().isoformat()
    page = html_of(client.get(audit, {"date_to": until}))
    assert "alice-old" in page and "alice-new" not in page and "bob-new" not in page

    response = client.get(audit, {"date_from": since, "date_to": until})
    assert "The end date is before the start date." in html_of(response)


@pytest.mark.django_db
def test_the_audit_log_is_paginated(owner, reseller):
    client, membership = owner
    for number in range(60):
        _event(reseller, membership.user, "test.event", days_ago=0, n=f"event-{number:03d}")
    first = html_of(client.get(url("settings_audit", reseller)))
    second = html_of(client.get(url("settings_audit", reseller), {"page": 2}))
    assert "Page 1 of 2" in first
    assert "event-059" in first and "event-000" not in first
    assert "event-000" in second


AUDIT_QUERIES = 8  # session, user, membership, action choices, count, page, switcher, bell


def _count_queries(client, page_url, params=None):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(page_url, params or {}).status_code == 200
    return len(queries)


@pytest.mark.django_db
def test_the_audit_log_query_count_is_pinned(owner, reseller):
    client, membership = owner
    audit = url("settings_audit", reseller)
    _event(reseller, membership.user, "test.event")
    few = _count_queries(client, audit)
    for number in range(60):
        _event(reseller, UserFactory(), f"test.event{number % 5}")
    many = _count_queries(client, audit)
    filtered = _count_queries(client, audit, {"action": "test.event1", "actor": "example"})
    assert few == many == filtered == AUDIT_QUERIES


MEMBER_QUERIES = 7  # session, user, membership, suggestions, members, switcher, bell


@pytest.mark.django_db
def test_the_member_list_query_count_is_pinned(owner, reseller):
    client, _ = owner
    members = url("settings_members", reseller)
    few = _count_queries(client, members)
    for _ in range(20):
        MembershipFactory(reseller=reseller, limited_to=BusinessFactory(reseller=reseller))
    many = _count_queries(client, members)
    assert few == many == MEMBER_QUERIES

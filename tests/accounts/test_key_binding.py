"""The provider key is bound to the address it was entered with.

Whoever can change the base URL (an owner on the settings page, support staff in the admin, a
bug) must not be able to have the stored key sent to a host of their choosing: a new address
needs the key entered again, and the client refuses to send a key to any other address.
"""

from __future__ import annotations

import importlib
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from accounts import credentials
from accounts.models import AuditEvent, Reseller, Role
from accounts.provider_access import KeyBoundElsewhere, provider_client, provider_error_message
from accounts.services import reseller_create_or_update
from accounts.settings_services import reseller_connection_test, reseller_connection_update
from listings.services import RefreshFailed, listing_status_refresh
from tests.accounts.test_settings_pages import connection_data
from tests.factories import BusinessFactory, ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db

KEY = "bound-key-SENTINEL-5151"
OLD_URL = "http://127.0.0.1:9/sandbox"


class Listener:
    """A host an owner might point the base URL at: it records every request it gets."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the stdlib's name
                headers = {name.lower(): value for name, value in self.headers.items()}
                listener.requests.append({"path": self.path, "headers": headers})
                body = b"[]"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_PUT = do_DELETE = do_GET  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def keys_received(self) -> list[str | None]:
        return [request["headers"].get("x-api-key") for request in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    host = Listener()
    yield host
    host.close()


@pytest.fixture
def reseller(settings, tmp_path):
    settings.PROVIDER_MAX_RETRIES = 0
    settings.DATA_DIR = tmp_path  # a fresh file rate limiter
    return ResellerFactory(api_key=KEY, provider_base_url=OLD_URL)


@pytest.fixture
def owner_client(member_client, reseller):
    client, _ = member_client(Role.OWNER, reseller=reseller)
    return client


def test_the_key_cannot_be_sent_to_a_new_address_without_being_entered_again(
        owner_client, reseller, listener):
    settings_url = reverse("settings_connection", args=[reseller.slug])

    # An owner points the base URL at their own host and keeps the stored key: refused.
    response = owner_client.post(settings_url,
                                 connection_data(reseller, provider_base_url=listener.url))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["api_key"]
    assert "Enter the API key again" in errors["api_key"][0]
    assert "Enter the API key again" in response.content.decode()
    reseller.refresh_from_db()
    assert reseller.provider_base_url == OLD_URL
    assert not AuditEvent.unscoped.filter(action="reseller.connection_updated").exists()
    assert listener.requests == []

    # The URL changes anyway (the admin, a bug): neither the connection test nor a provider
    # call sends anything to the new host.
    Reseller.objects.filter(pk=reseller.pk).update(provider_base_url=listener.url)
    reseller.refresh_from_db()
    result = reseller_connection_test(tenant=reseller, actor=None)
    assert not result.ok and result.outcome == "key_bound_elsewhere"
    assert "another provider address" in result.message and KEY not in result.message
    with pytest.raises(RefreshFailed, match="another provider address"):
        listing_status_refresh(tenant=reseller, actor=None,
                               business=BusinessFactory(reseller=reseller))
    with pytest.raises(credentials.CredentialError) as refused:
        provider_client(tenant=reseller)
    assert KEY not in str(refused.value) and KEY[:-4] not in str(refused.value)
    page = owner_client.post(reverse("settings_test_connection", args=[reseller.slug]),
                             follow=True).content.decode()
    assert "another provider address" in page
    assert listener.requests == []

    # The owner enters the key again with the new address: now it goes there.
    response = owner_client.post(settings_url, connection_data(reseller, api_key=KEY))
    assert response.status_code == 302
    reseller.refresh_from_db()
    assert reseller.api_key_origin == listener.url.removesuffix("/api")
    result = reseller_connection_test(tenant=reseller, actor=None)
    assert result.ok, result.message
    assert listener.keys_received() == [KEY]


def test_the_url_and_a_new_key_together_are_accepted(owner_client, reseller, listener):
    response = owner_client.post(
        reverse("settings_connection", args=[reseller.slug]),
        connection_data(reseller, provider_base_url=listener.url, api_key="another-key-0001"))
    assert response.status_code == 302
    reseller.refresh_from_db()
    assert reseller.provider_base_url == listener.url
    assert reseller.api_key().value == "another-key-0001"
    event = AuditEvent.unscoped.get(action="reseller.connection_updated")
    assert event.summary["key_origin"] == reseller.api_key_origin
    assert reseller_connection_test(tenant=reseller, actor=None).ok
    assert listener.keys_received() == ["another-key-0001"]


@pytest.mark.parametrize("same_address", [
    "http://127.0.0.1:9/sandbox/",  # a trailing slash
    "HTTP://127.0.0.1:9/sandbox",  # the scheme's case
    "http://127.0.0.1:9/another/path",  # the path
])
def test_the_same_origin_is_not_a_new_address(reseller, same_address):
    changed = reseller_connection_update(
        tenant=reseller, actor=None, provider_base_url=same_address,
        account_number=reseller.account_number, rate_limit_count=reseller.rate_limit_count,
        rate_limit_seconds=reseller.rate_limit_seconds)
    assert "api_key" not in changed
    reseller.refresh_from_db()
    assert reseller.api_key().value == KEY
    assert reseller.api_key_origin == "http://127.0.0.1:9"


def test_host_case_and_the_default_port_are_not_a_new_address(monkeypatch):
    monkeypatch.setattr("portal.outbound.socket.getaddrinfo",
                        lambda *a, **k: [(2, 1, 6, "", ("93.184.215.14", 0))])
    reseller = ResellerFactory(api_key=KEY, provider_base_url="https://provider.example/api")
    for url in ("https://PROVIDER.example:443/api/", "https://provider.example/v2"):
        reseller_connection_update(
            tenant=reseller, actor=None, provider_base_url=url,
            account_number=reseller.account_number, rate_limit_count=1, rate_limit_seconds=1)
    reseller.refresh_from_db()
    assert reseller.provider_base_url == "https://provider.example/v2"
    assert reseller.api_key_origin == "https://provider.example:443"


@pytest.mark.parametrize("other_address", [
    "http://127.0.0.1:10/sandbox",  # another port
    "http://localhost:9/sandbox",  # another host name, even for the same machine
])
def test_another_port_or_host_needs_the_key(reseller, other_address):
    with pytest.raises(ValidationError) as refused:
        reseller_connection_update(
            tenant=reseller, actor=None, provider_base_url=other_address,
            account_number=reseller.account_number, rate_limit_count=1, rate_limit_seconds=1)
    assert set(refused.value.message_dict) == {"api_key"}
    reseller.refresh_from_db()
    assert reseller.provider_base_url == OLD_URL


def test_without_a_stored_key_the_url_changes_freely(reseller):
    Reseller.objects.filter(pk=reseller.pk).update(api_key_encrypted="", api_key_origin="")
    reseller.refresh_from_db()
    reseller_connection_update(
        tenant=reseller, actor=None, provider_base_url="http://127.0.0.1:10/sandbox",
        account_number=reseller.account_number, rate_limit_count=1, rate_limit_seconds=1)
    reseller.refresh_from_db()
    assert reseller.provider_base_url == "http://127.0.0.1:10/sandbox"


def test_set_api_key_binds_the_key_to_the_current_origin(reseller):
    assert reseller.api_key_origin == "http://127.0.0.1:9"
    reseller.provider_base_url = "https://provider.example/api"
    reseller.set_api_key("a-key-1234")
    assert reseller.api_key_origin == "https://provider.example:443"
    reseller.provider_base_url = "not a url"
    reseller.set_api_key("a-key-1234")
    assert reseller.api_key_origin == ""  # bound nowhere, so never sent


def test_a_key_bound_nowhere_is_never_sent(reseller):
    Reseller.objects.filter(pk=reseller.pk).update(api_key_origin="")
    reseller.refresh_from_db()
    with pytest.raises(KeyBoundElsewhere) as refused:
        provider_client(tenant=reseller)
    assert "enter the key again" in provider_error_message(refused.value)


def test_the_migration_backfills_the_origin_of_the_current_url(reseller):
    migration = importlib.import_module("accounts.migrations.0008_reseller_api_key_origin")
    other = ResellerFactory(provider_base_url="https://Provider.Example/api/")
    Reseller.objects.update(api_key_origin="")
    migration.backfill(apps, None)
    assert dict(Reseller.objects.values_list("pk", "api_key_origin")) == {
        reseller.pk: "http://127.0.0.1:9", other.pk: "https://provider.example:443"}
    reseller.refresh_from_db()
    provider_client(tenant=reseller).close()


def test_the_admin_cannot_change_the_base_url_of_a_reseller_with_a_key(client, reseller):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    change_url = reverse("admin:accounts_reseller_change", args=[reseller.pk])
    page = client.get(change_url).content.decode()
    assert 'name="provider_base_url"' not in page
    client.post(change_url, {"name": reseller.name, "slug": reseller.slug,
                             "account_number": reseller.account_number,
                             "provider_base_url": "https://attacker.example/",
                             "status": reseller.status, "rate_limit_count": 1,
                             "rate_limit_seconds": 1})
    reseller.refresh_from_db()
    assert reseller.provider_base_url == OLD_URL
    # Without a key there is nothing to send away: the field stays editable.
    keyless = ResellerFactory(provider_base_url=OLD_URL)
    Reseller.objects.filter(pk=keyless.pk).update(api_key_encrypted="")
    page = client.get(reverse("admin:accounts_reseller_change", args=[keyless.pk]))
    assert 'name="provider_base_url"' in page.content.decode()


def test_reseller_create_needs_the_key_for_a_new_address(monkeypatch, capsys, reseller):
    def run(*extra, stdin=""):
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        call_command("reseller_create", "--slug", reseller.slug, "--name", reseller.name,
                     "--account-number", str(reseller.account_number), *extra)
        return json.loads(capsys.readouterr().out)

    with pytest.raises(CommandError, match="api_key: Enter the API key again"):
        run("--base-url", "https://provider.example/api", "--no-key")
    reseller.refresh_from_db()
    assert reseller.provider_base_url == OLD_URL
    # The same key again (a demo restarted on another port) binds it to the new address.
    run("--base-url", "http://127.0.0.1:8001/sandbox", stdin=KEY + "\n")
    reseller.refresh_from_db()
    assert reseller.api_key_origin == "http://127.0.0.1:8001"
    assert reseller.api_key().value == KEY
    # And a path change alone keeps working without the key.
    run("--base-url", "http://127.0.0.1:8001/other", "--no-key")
    reseller.refresh_from_db()
    assert reseller.provider_base_url == "http://127.0.0.1:8001/other"


def test_reseller_create_or_update_binds_a_new_reseller(reseller):
    created, _ = reseller_create_or_update(actor=None, slug="fresh", name="Fresh",
                                           account_number=7, provider_base_url=OLD_URL,
                                           api_key=KEY)
    assert created.api_key_origin == "http://127.0.0.1:9"
    provider_client(tenant=created).close()

"""A connection's names on the wire and its rate limit (learned or known): the settings page,
the command line, and the client they give."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from accounts.models import Reseller, Role, WireDialect
from accounts.provider_access import provider_client, rate_limit_key, shared_pacer
from provider import Dialect
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db
KEY = "dialect-and-rate-key-SECRET-7777"


def create(monkeypatch, *extra):
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    out = io.StringIO()
    call_command("reseller_create", "--slug", "wire", "--name", "Wire Agency",
                 "--account-number", "123456", "--base-url", "http://127.0.0.1:8000/sandbox",
                 *extra, stdout=out)
    return json.loads(out.getvalue())


def test_a_new_reseller_learns_its_limit_and_speaks_neutral_names(monkeypatch):
    printed = create(monkeypatch)
    assert printed["rate_limit"] == "auto" and printed["dialect"] == "neutral"
    reseller = Reseller.objects.get(slug="wire")
    assert reseller.rate_limit_auto and reseller.wire_dialect == WireDialect.NEUTRAL


def test_the_command_sets_a_known_limit_and_the_providers_names(monkeypatch):
    printed = create(monkeypatch, "--rate-limit", "600/60", "--dialect", "provider")
    assert printed["rate_limit"] == "600/60" and printed["dialect"] == "provider"
    reseller = Reseller.objects.get(slug="wire")
    assert (reseller.rate_limit_count, reseller.rate_limit_seconds) == (600, 60)
    assert not reseller.rate_limit_auto
    # Back to learning it, keeping the known count for later.
    assert create(monkeypatch, "--rate-limit", "auto")["rate_limit"] == "auto"
    assert Reseller.objects.get(slug="wire").rate_limit_count == 600


@pytest.mark.parametrize("text", ["fast", "0/1", "10/0", "10"])
def test_a_rate_limit_that_is_not_one_names_the_rule(monkeypatch, text):
    with pytest.raises(CommandError, match=r"rate_limit: .*auto.*COUNT/SECONDS"):
        create(monkeypatch, "--rate-limit", text)
    assert not Reseller.objects.filter(slug="wire").exists()


def test_the_client_speaks_the_connections_dialect_and_paces_a_learned_limit(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    settings.REDIS_URL = ""
    learning = ResellerFactory(api_key=KEY, rate_limit_auto=True,
                               wire_dialect=WireDialect.PROVIDER)
    known = ResellerFactory(api_key=KEY + "2")
    with provider_client(tenant=learning) as client:
        assert client.dialect is Dialect.PROVIDER
        assert client._transport._pacer is shared_pacer()
    with provider_client(tenant=known) as client:
        assert client.dialect is Dialect.NEUTRAL
        assert client._transport._pacer is None
    assert shared_pacer().learned_rate(rate_limit_key(learning)) is None  # nothing sent yet


def connection_post(client, reseller, **changes):
    data = {"provider_base_url": reseller.provider_base_url,
            "account_number": reseller.account_number, "api_key": "",
            "rate_limit_count": "", "rate_limit_seconds": "",
            "rate_limit_auto": "auto", "wire_dialect": "neutral", **changes}
    return client.post(reverse("settings_connection", args=[reseller.slug]), data)


def test_the_settings_page_sets_the_dialect_and_a_learned_limit(member_client, settings,
                                                               tmp_path):
    settings.DATA_DIR = tmp_path
    settings.REDIS_URL = ""
    reseller = ResellerFactory(api_key=KEY, rate_limit_count=40)
    client, _ = member_client(Role.OWNER, reseller=reseller)
    response = connection_post(client, reseller, wire_dialect="provider")
    assert response.status_code == 302
    reseller.refresh_from_db()
    assert reseller.rate_limit_auto and reseller.wire_dialect == "provider"
    assert reseller.rate_limit_count == 40  # kept for the day the limit is known again
    page = client.get(reverse("settings_connection", args=[reseller.slug])).content.decode()
    assert "Nothing learned yet" in page
    shared_pacer().record(rate_limit_key(reseller), limited=False, sent_at=0)
    learned = shared_pacer().learned_rate(rate_limit_key(reseller))
    assert learned
    page = client.get(reverse("settings_connection", args=[reseller.slug])).content.decode()
    assert f"Learned so far: {learned:.1f} requests a second" in page


def test_a_known_limit_needs_its_numbers_and_nothing_is_lost(member_client):
    reseller = ResellerFactory(api_key=KEY)
    client, _ = member_client(Role.OWNER, reseller=reseller)
    response = connection_post(client, reseller, rate_limit_auto="fixed",
                               rate_limit_seconds="1", wire_dialect="provider")
    assert response.status_code == 400
    assert response.context["form"].errors["rate_limit_count"] == [
        "Enter a number: a known rate limit needs its count and its window."]
    assert 'value="provider" selected' in response.content.decode() or \
        response.context["form"]["wire_dialect"].value() == "provider"
    reseller.refresh_from_db()
    assert reseller.wire_dialect == "neutral" and not reseller.rate_limit_auto


# -- the API ---------------------------------------------------------------------------------


def api_url(reseller):
    return reverse("api_connection", args=[reseller.slug])


def test_owners_read_and_set_the_connection_through_the_api(api_member, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    settings.REDIS_URL = ""
    reseller = ResellerFactory(api_key=KEY)
    client, _ = api_member(Role.OWNER, reseller=reseller)
    body = client.get(api_url(reseller)).json()
    assert body["rate_limit"] == f"{reseller.rate_limit_count}/1"
    assert body["dialect"] == "neutral" and body["learned_rate"] is None
    assert body["api_key"].endswith(KEY[-4:]) and KEY[:-4] not in str(body)

    response = client.patch(api_url(reseller), {"rate_limit": "auto", "dialect": "provider"},
                            format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["rate_limit"] == "auto"
    reseller.refresh_from_db()
    assert reseller.rate_limit_auto and reseller.wire_dialect == "provider"

    response = client.patch(api_url(reseller), {"rate_limit": "600/60"}, format="json")
    assert response.json()["rate_limit"] == "600/60"
    reseller.refresh_from_db()
    assert (reseller.rate_limit_auto, reseller.rate_limit_count, reseller.rate_limit_seconds) == (
        False, 600, 60)
    assert reseller.wire_dialect == "provider"  # left out: kept


@pytest.mark.parametrize(("field", "value"), [("rate_limit", "fast"), ("rate_limit", "0/1"),
                                              ("dialect", "klingon")])
def test_bad_connection_input_names_the_field_and_changes_nothing(api_member, field, value):
    reseller = ResellerFactory(api_key=KEY)
    client, _ = api_member(Role.OWNER, reseller=reseller)
    response = client.patch(api_url(reseller), {field: value}, format="json")
    assert response.status_code == 400
    assert field in str(response.json())
    reseller.refresh_from_db()
    assert not reseller.rate_limit_auto and reseller.wire_dialect == "neutral"


def test_the_connection_is_for_owners_without_a_limit(api_member):
    reseller = ResellerFactory(api_key=KEY)
    manager, _ = api_member(Role.MANAGER, reseller=reseller)
    assert manager.get(api_url(reseller)).status_code == 403
    other, _ = api_member(Role.OWNER)
    assert other.get(api_url(reseller)).status_code == 404


def test_the_key_and_address_cannot_be_written_through_the_api(api_member):
    reseller = ResellerFactory(api_key=KEY)
    client, _ = api_member(Role.OWNER, reseller=reseller)
    response = client.patch(api_url(reseller), {"api_key": "new-key-123456",
                                                "provider_base_url": "http://evil.example"},
                            format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) >= {"api_key", "provider_base_url"}
    reseller.refresh_from_db()
    assert reseller.api_key().value == KEY


def test_an_empty_change_is_refused(api_member):
    reseller = ResellerFactory(api_key=KEY)
    client, _ = api_member(Role.OWNER, reseller=reseller)
    response = client.patch(api_url(reseller), {}, format="json")
    assert response.status_code == 400 and "Nothing to change" in str(response.json())

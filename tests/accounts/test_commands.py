import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import AuditEvent, Membership, Reseller, User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

KEY = "sandbox-key-do-not-echo-4242"


def reseller_create(monkeypatch, capsys, *extra, stdin=KEY + "\n"):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    call_command("reseller_create", "--slug", "acme", "--name", "Acme Agency",
                 "--account-number", "123456", "--base-url", "http://127.0.0.1:8000/sandbox",
                 *extra)
    return capsys.readouterr()


def test_reseller_create_is_idempotent_and_never_echoes_the_key(monkeypatch, capsys):
    owner = UserFactory(email="owner@example.com")
    first = reseller_create(monkeypatch, capsys, "--owner", "owner@example.com")
    second = reseller_create(monkeypatch, capsys, "--owner", "owner@example.com")

    for output in (first, second):
        assert KEY not in output.out + output.err
        assert "4242" not in output.out
    first_json, second_json = json.loads(first.out), json.loads(second.out)
    assert first_json["slug"] == "acme" and first_json["created"] is True
    assert second_json["id"] == first_json["id"] and second_json["created"] is False

    assert Reseller.objects.count() == 1
    reseller = Reseller.objects.get()
    assert reseller.api_key().value == KEY
    assert Membership.unscoped.get(reseller=reseller).user == owner
    # The second, identical run changed nothing and so wrote no update event.
    assert list(AuditEvent.unscoped.values_list("action", flat=True).order_by("id")) == [
        "reseller.created", "membership.created"]
    assert all(KEY not in json.dumps(e.summary) for e in AuditEvent.unscoped.all())


def test_reseller_create_updates_fields_and_replaces_the_key(monkeypatch, capsys):
    reseller_create(monkeypatch, capsys)
    monkeypatch.setattr("sys.stdin", io.StringIO("a-new-key-9999\n"))
    call_command("reseller_create", "--slug", "acme", "--name", "Acme Renamed",
                 "--account-number", "654321", "--base-url", "https://provider.example/resources")
    reseller = Reseller.objects.get()
    assert (reseller.name, reseller.account_number) == ("Acme Renamed", 654321)
    assert reseller.api_key().value == "a-new-key-9999"
    update = AuditEvent.unscoped.get(action="reseller.updated")
    assert set(update.summary["fields"]) == {"name", "account_number", "provider_base_url",
                                             "api_key"}


def test_reseller_create_requires_a_key_on_stdin(monkeypatch, capsys):
    with pytest.raises(CommandError, match="standard input"):
        reseller_create(monkeypatch, capsys, stdin="")
    assert not Reseller.objects.exists()


def test_reseller_create_rejects_bad_input_by_field(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY))
    with pytest.raises(CommandError, match="provider_base_url"):
        call_command("reseller_create", "--slug", "acme", "--name", "Acme",
                     "--account-number", "1", "--base-url", "not a url")
    assert not Reseller.objects.exists()


def test_reseller_create_names_a_missing_owner(monkeypatch, capsys):
    with pytest.raises(CommandError, match="nobody@example.com"):
        reseller_create(monkeypatch, capsys, "--owner", "nobody@example.com")


def test_user_create_reads_the_password_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-enough-passphrase\n"))
    call_command("user_create", "--email", "Staff@Example.com", "--password-stdin")
    out = json.loads(capsys.readouterr().out)
    user = User.objects.get(pk=out["id"])
    assert user.email == "staff@example.com"
    assert user.check_password("a-long-enough-passphrase")
    monkeypatch.setattr("sys.stdin", io.StringIO("another-long-passphrase\n"))
    call_command("user_create", "--email", "staff@example.com", "--password-stdin")
    assert json.loads(capsys.readouterr().out)["created"] is False
    assert User.objects.count() == 1


def test_user_create_refuses_a_weak_password(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("123\n"))
    with pytest.raises(CommandError, match="password"):
        call_command("user_create", "--email", "weak@example.com", "--password-stdin")
    assert not User.objects.exists()

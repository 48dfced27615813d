"""`manage.py member_add`: give an existing user a role in a reseller, or change it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from accounts.models import AuditEvent, Membership, Role
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def member_add(capsys, *args) -> dict:
    call_command("member_add", *args)
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out  # one JSON line
    return json.loads(out)


def membership_of(reseller, user) -> Membership:
    return Membership.unscoped.select_related("limited_to").get(reseller=reseller, user=user)


def actions(reseller) -> list[str]:
    return list(AuditEvent.unscoped.filter(reseller=reseller).order_by("id")
                .values_list("action", flat=True))


def test_adds_a_member_and_records_who_did_it(capsys):
    reseller = ResellerFactory(slug="acme")
    UserFactory(email="ann@example.com")
    out = member_add(capsys, "--reseller", "acme", "--email", "Ann@Example.com",
                     "--role", "manager")
    assert out == {"reseller": "acme", "email": "ann@example.com", "role": "manager",
                   "limit_to": None, "created": True}
    membership = Membership.unscoped.get(reseller=reseller)
    assert (membership.user.email, membership.role, membership.limited_to) == (
        "ann@example.com", Role.MANAGER, None)
    event = AuditEvent.unscoped.get(reseller=reseller)
    # No actor: support staff or a script.
    assert (event.action, event.actor_id) == ("membership.created", None)


def test_limits_a_member_to_a_business_then_changes_the_role_and_lifts_the_limit(capsys):
    location = BusinessFactory()
    reseller = location.reseller
    user = UserFactory()
    out = member_add(capsys, "--reseller", reseller.slug, "--email", user.email,
                     "--role", "viewer", "--limit-to", str(location.remote_id))
    assert out["limit_to"] == location.remote_id and out["created"] is True
    assert membership_of(reseller, user).limited_to == location

    out = member_add(capsys, "--reseller", reseller.slug, "--email", user.email,
                     "--role", "owner")
    assert out == {"reseller": reseller.slug, "email": user.email, "role": "owner",
                   "limit_to": None, "created": False}
    membership = membership_of(reseller, user)
    assert (membership.role, membership.limited_to) == (Role.OWNER, None)
    assert Membership.unscoped.filter(reseller=reseller).count() == 1

    # The same again changes nothing and records nothing.
    out = member_add(capsys, "--reseller", reseller.slug, "--email", user.email,
                     "--role", "owner")
    assert out["created"] is False
    assert actions(reseller) == ["membership.created", "membership.updated"]


@pytest.mark.parametrize(("args", "option", "words"), [
    (["--reseller", "nope"], "--reseller", "no reseller with slug 'nope'"),
    (["--email", "nobody@example.com"], "--email", "no user with email 'nobody@example.com'"),
    (["--role", "admin"], "--role", "'admin' is not a role; choose owner, manager, viewer"),
    (["--limit-to", "12ab"], "--limit-to", "'12ab' is not a business number"),
    (["--limit-to", "99999999999999999999"], "--limit-to", "is not a business number"),
    (["--limit-to", "424242"], "--limit-to", "has no business with number 424242"),
])
def test_refuses_bad_input_naming_the_option(capsys, args, option, words):
    reseller = ResellerFactory(slug="acme")
    user = UserFactory(email="ann@example.com")
    given = {"--reseller": "acme", "--email": user.email, "--role": "viewer"}
    given.update(zip(args[::2], args[1::2], strict=True))
    with pytest.raises(CommandError) as refused:
        call_command("member_add", *[part for pair in given.items() for part in pair])
    assert str(refused.value).startswith(f"{option}: "), refused.value
    assert words in str(refused.value)
    assert not Membership.unscoped.filter(reseller=reseller).exists()
    assert capsys.readouterr().out == ""


def test_refuses_a_business_of_another_reseller_or_a_removed_one():
    reseller = ResellerFactory()
    user = UserFactory()
    elsewhere = BusinessFactory()
    removed = BusinessFactory(reseller=reseller, removed_at=timezone.now())
    with pytest.raises(CommandError, match=f"has no business with number {elsewhere.remote_id}"):
        call_command("member_add", "--reseller", reseller.slug, "--email", user.email,
                     "--role", "viewer", "--limit-to", str(elsewhere.remote_id))
    with pytest.raises(CommandError, match=f"--limit-to: business {removed.remote_id} was "
                                           "removed"):
        call_command("member_add", "--reseller", reseller.slug, "--email", user.email,
                     "--role", "viewer", "--limit-to", str(removed.remote_id))
    assert not Membership.unscoped.filter(reseller=reseller).exists()


def test_the_last_owner_cannot_be_moved_to_another_role(capsys):
    owner = MembershipFactory(role=Role.OWNER)
    reseller = owner.reseller
    with pytest.raises(CommandError, match=r"--role: .* is the last owner of"):
        call_command("member_add", "--reseller", reseller.slug, "--email", owner.user.email,
                     "--role", "manager")
    assert membership_of(reseller, owner.user).role == Role.OWNER
    assert actions(reseller) == []

    # With a second owner, the first may step down.
    other = UserFactory()
    member_add(capsys, "--reseller", reseller.slug, "--email", other.email, "--role", "owner")
    out = member_add(capsys, "--reseller", reseller.slug, "--email", owner.user.email,
                     "--role", "manager")
    assert (out["role"], out["created"]) == ("manager", False)
    assert membership_of(reseller, owner.user).role == Role.MANAGER


def test_the_last_owner_of_the_whole_account_cannot_be_limited():
    location = BusinessFactory()
    owner = MembershipFactory(role=Role.OWNER, reseller=location.reseller)
    with pytest.raises(CommandError, match=r"--limit-to: .* is the last owner of"):
        call_command("member_add", "--reseller", owner.reseller.slug, "--email",
                     owner.user.email, "--role", "owner", "--limit-to", str(location.remote_id))
    assert membership_of(owner.reseller, owner.user).limited_to is None


# -- one real run, for the exit status and stderr ------------------------------------------------


def shared_database_url(tmp_path: Path) -> str:
    """A database a separate process can open: the test database itself on PostgreSQL; on
    SQLite (whose test database lives in memory) a file copy of it."""
    if connection.vendor == "postgresql":
        db = connection.settings_dict
        credentials = quote(db["USER"] or "postgres") + (
            f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
        return (f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
                f"{quote(db['NAME'])}")
    path = tmp_path / "copy.sqlite3"
    connection.ensure_connection()
    target = sqlite3.connect(path)
    try:
        connection.connection.backup(target)
    finally:
        target.close()
    return f"sqlite:///{path}"


@pytest.mark.django_db(transaction=True)  # the other process sees only committed rows
def test_manage_py_exits_1_with_the_reason_on_stderr(tmp_path):
    reseller = ResellerFactory()
    user = UserFactory()
    BusinessFactory(reseller=reseller)
    env = {key: value for key, value in os.environ.items()
           if key not in {"DJANGO_SETTINGS_MODULE", "DEBUG"}}
    env.update(DATABASE_URL=shared_database_url(tmp_path), DATA_DIR=str(tmp_path),
               ENV_FILE="/nonexistent")
    result = subprocess.run(
        [sys.executable, "manage.py", "member_add", "--reseller", reseller.slug,
         "--email", user.email, "--role", "viewer", "--limit-to", "424242"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert (f"CommandError: --limit-to: {reseller.slug} has no business with number 424242."
            in result.stderr), result.stderr
    assert not Membership.unscoped.filter(reseller=reseller).exists()

import json

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts import credentials
from accounts.models import AuditEvent, Reseller
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db


def run_rotation(capsys):
    call_command("rotate_encryption_keys")
    return json.loads(capsys.readouterr().out)


def test_rotation_reencrypts_every_key_with_the_newest(settings, capsys):
    old = settings.API_KEY_ENCRYPTION_KEYS[0]
    first, second = ResellerFactory(api_key="key-one-1111"), ResellerFactory(api_key="key-2222")
    before = {r.pk: r.api_key_encrypted for r in (first, second)}

    new = Fernet.generate_key().decode()
    settings.API_KEY_ENCRYPTION_KEYS = [new, old]
    # Before rotation, old ciphertext still decrypts.
    assert Reseller.objects.get(pk=first.pk).api_key().value == "key-one-1111"

    assert run_rotation(capsys) == {"rotated": 2, "unchanged": 0, "failed": []}
    for reseller in Reseller.objects.all():
        assert reseller.api_key_encrypted != before[reseller.pk]
        assert credentials.key_id_of(reseller.api_key_encrypted) == credentials.primary_key_id()
    assert AuditEvent.unscoped.filter(action="reseller.api_key_reencrypted").count() == 2

    # After rotation the old key can go.
    settings.API_KEY_ENCRYPTION_KEYS = [new]
    assert Reseller.objects.get(pk=second.pk).api_key().value == "key-2222"
    assert run_rotation(capsys) == {"rotated": 0, "unchanged": 2, "failed": []}


def test_rotation_reports_keys_it_cannot_read(settings, capsys):
    reseller = ResellerFactory()
    settings.API_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(CommandError, match="could not be decrypted"):
        call_command("rotate_encryption_keys")
    report = json.loads(capsys.readouterr().out)
    assert report["failed"][0]["slug"] == reseller.slug
    assert Reseller.objects.get(pk=reseller.pk).api_key_encrypted == reseller.api_key_encrypted

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from accounts import credentials
from accounts.credentials import CredentialError
from accounts.models import Reseller
from tests.factories import ResellerFactory


def test_round_trip():
    token = credentials.encrypt("sk-live-1234")
    assert "sk-live-1234" not in token
    assert credentials.decrypt(token) == "sk-live-1234"


def test_ciphertext_carries_the_key_id(settings):
    token = credentials.encrypt("abc")
    assert credentials.key_id_of(token) == credentials.primary_key_id()
    settings.API_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    assert credentials.key_id_of(token) != credentials.primary_key_id()


def test_old_ciphertext_still_decrypts_after_a_new_key_is_added(settings):
    old_key = settings.API_KEY_ENCRYPTION_KEYS[0]
    token = credentials.encrypt("secret-value")
    settings.API_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), old_key]
    assert credentials.decrypt(token) == "secret-value"
    assert credentials.key_id_of(credentials.encrypt("x")) != credentials.key_id_of(token)


def test_an_unknown_key_raises_a_clear_error_without_ciphertext(settings):
    token = credentials.encrypt("secret-value")
    settings.API_KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(CredentialError) as excinfo:
        credentials.decrypt(token)
    message = str(excinfo.value)
    assert "not among API_KEY_ENCRYPTION_KEYS" in message
    assert token.split(":", 1)[1] not in message


def test_a_tampered_token_raises(settings):
    token = credentials.encrypt("secret-value")
    key_id, body = token.split(":", 1)
    tampered = f"{key_id}:{body[:-6]}AAAAAA"
    with pytest.raises(CredentialError):
        credentials.decrypt(tampered)


def test_missing_or_bad_keys_are_a_configuration_error(settings):
    settings.API_KEY_ENCRYPTION_KEYS = []
    with pytest.raises(ImproperlyConfigured, match="API_KEY_ENCRYPTION_KEYS"):
        credentials.encrypt("x")
    settings.API_KEY_ENCRYPTION_KEYS = ["not-a-fernet-key"]
    with pytest.raises(ImproperlyConfigured, match="entry 1"):
        credentials.encrypt("x")


def test_secret_repr_is_masked():
    secret = credentials.Secret("abcdefgh-9876")
    assert "abcdefgh" not in repr(secret)
    assert "abcdefgh" not in str(secret)
    assert repr(secret).endswith("9876)")


@pytest.mark.django_db
def test_reseller_stores_ciphertext_fingerprint_and_last4_only():
    reseller = ResellerFactory(api_key="provider-key-WXYZ")
    stored = Reseller.objects.get(pk=reseller.pk)
    assert "provider-key" not in stored.api_key_encrypted
    assert stored.api_key_last4 == "WXYZ"
    assert stored.api_key_masked == "••••WXYZ"
    assert stored.api_key_fingerprint == credentials.fingerprint("provider-key-WXYZ")
    assert stored.api_key().value == "provider-key-WXYZ"
    assert "provider-key" not in repr(stored.api_key())

"""Encryption of provider API keys at rest.

Keys come from `API_KEY_ENCRYPTION_KEYS` (Fernet keys, newest first), never from SECRET_KEY.
A stored value is `<key id>:<Fernet token>`, where the key id is a short digest of the Fernet
key that encrypted it, so decryption picks the right key directly and rotation can tell which
values still use an old one.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.views.decorators.debug import sensitive_variables

MASK = "••••"


class CredentialError(Exception):
    """A stored credential cannot be decrypted. The message never contains the ciphertext."""


def _key_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:8]


def _keys() -> list[tuple[str, Fernet]]:
    raw_keys = [k.strip() for k in settings.API_KEY_ENCRYPTION_KEYS if k.strip()]
    if not raw_keys:
        raise ImproperlyConfigured(
            "API_KEY_ENCRYPTION_KEYS is empty. Set it to one or more Fernet keys, newest first "
            "(make demo writes one into .env)."
        )
    keys = []
    for position, raw in enumerate(raw_keys, start=1):
        try:
            keys.append((_key_id(raw), Fernet(raw.encode())))
        except (ValueError, TypeError) as exc:
            raise ImproperlyConfigured(
                f"API_KEY_ENCRYPTION_KEYS entry {position} is not a valid Fernet key "
                "(32 url-safe base64-encoded bytes)."
            ) from exc
    return keys


def primary_key_id() -> str:
    return _keys()[0][0]


@sensitive_variables("plaintext")
def encrypt(plaintext: str) -> str:
    key_id, fernet = _keys()[0]
    return f"{key_id}:{fernet.encrypt(plaintext.encode()).decode()}"


def key_id_of(ciphertext: str) -> str:
    return ciphertext.split(":", 1)[0]


@sensitive_variables()  # every local: the plaintext is only ever a return value here
def decrypt(ciphertext: str) -> str:
    key_id, _, token = ciphertext.partition(":")
    if not token:
        raise CredentialError("The stored credential is malformed.")
    for candidate_id, fernet in _keys():
        if candidate_id == key_id:
            try:
                return fernet.decrypt(token.encode()).decode()
            except InvalidToken as exc:
                raise CredentialError(
                    f"The stored credential does not decrypt with encryption key {key_id}."
                ) from exc
    raise CredentialError(
        f"The stored credential was encrypted with key {key_id}, which is not among "
        "API_KEY_ENCRYPTION_KEYS. Add that key back (after the newest) to read it."
    )


@sensitive_variables("plaintext")
def fingerprint(plaintext: str) -> str:
    digest = hashlib.sha256(plaintext.encode()).digest()
    return base64.b32encode(digest).decode()[:16].lower()


def mask(last4: str) -> str:
    return f"{MASK}{last4}" if last4 else ""


@dataclass(frozen=True, slots=True)
class Secret:
    """A decrypted key on its way to the provider client; its repr and str never show it."""

    value: str

    def __repr__(self) -> str:
        return f"Secret({mask(self.value[-4:])})"

    __str__ = __repr__

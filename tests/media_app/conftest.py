import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Factories set a password for every user; the production hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

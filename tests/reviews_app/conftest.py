import gc
import threading

import pytest


@pytest.fixture
def finish_live_requests():
    """Let the live server finish closing its requests before the database is handed back.

    A provider error keeps its HTTP connection open until the exception's reference cycle is
    collected, so collect first."""
    yield
    gc.collect()
    for thread in threading.enumerate():
        if "process_request_thread" in thread.name:
            thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Factories set a password for every user; the production hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

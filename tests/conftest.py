import os
import uuid

import pytest
from cryptography.fernet import Fernet
from pytest_django.live_server_helper import LiveServer

from portal.tenancy import tenant_scope

TEST_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), Fernet.generate_key().decode()]


@pytest.fixture(autouse=True, scope="session")
def _api_replies_match_the_schema():
    """Every API reply a test receives through the test client is validated against the
    published schema (tests/schema_check.py): a reply the schema does not describe fails the
    test."""
    from tests.schema_check import check_replies

    with check_replies():
        yield


@pytest.fixture(autouse=True)
def _encryption_keys(settings):
    settings.API_KEY_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS[:1]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Factories set a password for every user; the production hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def fast_provider(settings, tmp_path):
    """For tests against the live sandbox: quick retries, a fresh file rate limiter per test,
    and, afterwards, the live server's requests finished."""
    from tests.live import join_live_server_requests

    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path
    # A change whose answer was lost is read back at once (tests/outbox tests the wait).
    settings.OUTBOX_IN_FLIGHT_SECONDS = 0
    yield
    join_live_server_requests()


@pytest.fixture(autouse=True)
def _private_cache(settings):
    """Each test gets its own empty cache: throttle counts and cached provider answers never
    leak between tests, nor between test runs through the shared file or Redis cache."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"test-{uuid.uuid4()}"}}


@pytest.fixture
def scope():
    """Enter a reseller's tenant scope for the rest of the test: `scope(reseller)`."""
    entered = []

    def enter(reseller):
        context = tenant_scope(reseller)
        context.__enter__()
        entered.append(context)
        return reseller

    yield enter
    for context in reversed(entered):
        context.__exit__(None, None, None)


@pytest.fixture
def member_client(client):
    """Log `client` in as a member: `client, membership = member_client(role, reseller=...)`.

    Without a reseller, a new one is made; pass `limited_to=business` for a subtree member.
    """
    from accounts.models import Role
    from tests.factories import MembershipFactory, ResellerFactory

    def log_in(role=Role.MANAGER, reseller=None, **extra):
        membership = MembershipFactory(role=role, reseller=reseller or ResellerFactory(), **extra)
        client.force_login(membership.user)
        return client, membership

    return log_in


@pytest.fixture(scope="session")
def live_server(request, django_db_setup, django_db_blocker):
    """pytest-django's live server, created only once the test database exists.

    pytest-django's own ``live_server`` is a session fixture that pytest may set up before
    ``django_db_setup`` (which it requests only dynamically). It then sees no in-memory SQLite
    database to share, and every request thread opens its own connection to the shared-cache
    memory database and leaves it unclosed. When the garbage collector closes such a connection
    inside a SQLite callback of the main thread (the REGEXP of the first flush), SQLite waits
    for a mutex that thread already holds: the test run hangs. Created after the database, the
    server shares the main thread's connection, as Django's LiveServerTestCase does.
    """
    addr = (
        request.config.getvalue("liveserver")
        or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
        or "localhost"
    )
    with django_db_blocker.unblock():
        server = LiveServer(addr)
    yield server
    server.stop()


@pytest.fixture
def api_member():
    """An API client authenticated with a member's personal token:
    `client, membership = api_member(role, reseller=..., token_role=None, limited_to=...)`."""
    from accounts.models import Role
    from tests.factories import MembershipFactory, ResellerFactory, token_client

    def make(role=Role.MANAGER, reseller=None, token_role=None, **extra):
        membership = MembershipFactory(role=role, reseller=reseller or ResellerFactory(), **extra)
        return token_client(membership, role=token_role), membership

    return make

import pytest
from cryptography.fernet import Fernet

from portal.tenancy import tenant_scope

TEST_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), Fernet.generate_key().decode()]


@pytest.fixture(autouse=True)
def _encryption_keys(settings):
    settings.API_KEY_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS[:1]


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

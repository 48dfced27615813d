"""A reseller on the embedded sandbox with live updates turned on, over real HTTP."""


import pytest

from accounts.models import Role
from events.services import event_receiver_enable
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from sandbox.seeding import seed_partner
from tests.factories import MembershipFactory, ResellerFactory

KEY = "events-partner-key"


@pytest.fixture(autouse=True)
def _fast(fast_provider):
    pass


@pytest.fixture
def seeded(live_server):
    return seed_partner(api_key=KEY, locations=3, seed=7, rate_limit=(1000, 1))


@pytest.fixture
def reseller(seeded, live_server, settings):
    settings.PORTAL_PUBLIC_URL = live_server.url
    return ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                           provider_base_url=f"{live_server.url}/sandbox")


def send_open_outbox(reseller):
    """Send every queued change of the reseller now, as the worker would."""
    with tenant_scope(reseller):
        for entry in OutboxEntry.objects.filter(state=OutboxEntry.State.PENDING).order_by("pk"):
            outbox.outbox_send(tenant=reseller, entry_id=entry.pk)


@pytest.fixture
def receiver(reseller):
    with tenant_scope(reseller):
        made = event_receiver_enable(tenant=reseller, actor=None)
    send_open_outbox(reseller)
    return made


@pytest.fixture
def manager(reseller, client):
    membership = MembershipFactory(reseller=reseller, role=Role.MANAGER)
    client.force_login(membership.user)
    return client

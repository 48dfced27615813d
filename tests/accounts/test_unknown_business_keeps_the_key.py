"""A 401 that carries 1011 ("Business id is invalid") is an unknown business, not a rejected key.

The provider files 1011 under HTTP 401 on add media, get media and update hierarchy. Against
the embedded sandbox, which answers as the provider documents, the portal keeps the reseller's
key in good standing and reports the refusal as an unknown business; a real 1161 still flags it.
"""

import pytest

from accounts.models import Reseller
from accounts.provider_access import ProviderUnavailable, provider_call
from listings.services import hierarchy_update
from media_app.services import media_add
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory
from tests.live import connect_reseller

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "unknown-business-partner-key"
GONE = 123_456_789_012_345  # a location number the provider does not know


@pytest.fixture(autouse=True)
def _fast(fast_provider):
    pass


@pytest.fixture
def reseller(live_server):
    reseller, _ = connect_reseller(live_server, key=KEY, locations=2, seed=4)
    return reseller


def _send(reseller, entry) -> OutboxEntry:
    with tenant_scope(reseller):
        outbox.outbox_send(tenant=reseller, entry_id=entry.pk)
    entry.refresh_from_db()
    return entry


def _status(reseller) -> str:
    return Reseller.objects.get(pk=reseller.pk).status


def test_a_media_upload_for_an_unknown_business_is_refused_and_the_key_stays_good(reseller):
    business = BusinessFactory(reseller=reseller, remote_id=GONE)
    with tenant_scope(reseller):
        entry = media_add(tenant=reseller, actor=None, business=business,
                          url="https://images.example.com/front.png", category="EXTERIOR",
                          description="", media_format="PHOTO")

    entry = _send(reseller, entry)
    assert entry.state == OutboxEntry.State.REJECTED
    assert (entry.provider_code, entry.provider_message) == (1011, "Business id is invalid")
    assert _status(reseller) == Reseller.Status.ACTIVE


def test_a_hierarchy_update_for_an_unknown_business_is_refused_and_the_key_stays_good(reseller):
    business = BusinessFactory(reseller=reseller, remote_id=GONE)
    with tenant_scope(reseller):
        entry = hierarchy_update(tenant=reseller, actor=None, business=business,
                                 levels={"Region": "South"})

    entry = _send(reseller, entry)
    assert entry.state == OutboxEntry.State.REJECTED
    assert entry.provider_code == 1011
    assert _status(reseller) == Reseller.Status.ACTIVE


def test_reading_the_media_of_an_unknown_business_says_so_and_keeps_the_key(reseller):
    with pytest.raises(ProviderUnavailable) as caught, provider_call(tenant=reseller) as client:
        client.get_media(GONE)

    assert caught.value.code == 1011
    assert "does not know this business" in str(caught.value)
    assert _status(reseller) == Reseller.Status.ACTIVE


def test_a_key_the_provider_refuses_is_still_flagged(live_server):
    reseller, _ = connect_reseller(live_server, key=KEY, locations=2, seed=4,
                                   api_key="a-key-the-sandbox-never-issued")
    with pytest.raises(ProviderUnavailable), provider_call(tenant=reseller) as client:
        client.get_media(GONE)

    assert _status(reseller) == Reseller.Status.KEY_REJECTED

"""Adding media through the tab against the embedded sandbox: queued, sent, in the gallery."""


import pytest
from django.urls import reverse

from accounts.models import Role
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "media-pages-partner-key"


@pytest.fixture(autouse=True)
def _fast(fast_provider):
    pass


def test_an_added_photo_reaches_the_provider_and_the_gallery(live_server, client):
    seeded = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    business = BusinessFactory(reseller=reseller, remote_id=seeded["location_numbers"][0])
    client.force_login(MembershipFactory(reseller=reseller, role=Role.MANAGER).user)
    url = reverse("business_media", args=[reseller.slug, business.remote_id])
    photo = "https://images.example.com/new-front.png"

    client.post(url, {"url": photo, "media_format": "PHOTO", "category": "TEAMS",
                      "description": "Our team"})
    entry = OutboxEntry.unscoped.get()
    with tenant_scope(reseller):
        outbox.outbox_send(tenant=reseller, entry_id=entry.pk)
    entry.refresh_from_db()
    assert entry.state == OutboxEntry.State.ACCEPTED
    assert sandbox.MediaItem.objects.filter(url=photo, category="TEAMS").count() == 1
    page = client.get(url + "?category=TEAMS").content.decode()
    assert f'<img src="{photo}" loading="lazy" alt="Our team"' in page
    assert "Uploads not in the gallery" not in page

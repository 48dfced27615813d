"""An enterprise's overview against the embedded sandbox: the reviews of its locations (total
and average over the rated ones), asked with the enterprise's own id; its location-only tabs
are not offered and, opened anyway, ask nothing of the provider."""

import datetime as dt
from decimal import Decimal

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts.models import Business, Role
from provider import ProviderClient
from sandbox import models as sandbox
from sandbox.tree import subtree_ids
from tests.factories import MembershipFactory
from tests.live import connect_reseller, mirror_enterprise

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "business-rollups-partner-key"


@pytest.fixture(autouse=True)
def _fast(fast_provider):
    pass


@pytest.fixture
def enterprise(live_server, client):
    """The first seeded enterprise and its locations, mirrored as a sync leaves them."""
    reseller, seeded = connect_reseller(live_server, key=KEY, locations=20, seed=3)
    ent, _, remote = mirror_enterprise(reseller, seeded)
    client.force_login(MembershipFactory(reseller=reseller, role=Role.VIEWER).user)
    return client, reseller, ent, remote


def expected_reviews(remote):
    today = timezone.localdate()
    ratings = list(sandbox.Review.objects.filter(
        location_id__in=subtree_ids(remote),
        review_date__gte=today - dt.timedelta(days=settings.SYNC_REPORT_LOOKBACK_DAYS),
        review_date__lte=today).values_list("rating", flat=True))
    rated = [rating for rating in ratings if rating > 0]
    return len(ratings), (Decimal(sum(rated)) / len(rated)).quantize(Decimal("0.01"))


def test_the_overview_shows_the_reviews_of_the_enterprises_locations(enterprise):
    client, reseller, ent, remote = enterprise
    assert ent.type != Business.Type.BUSINESS
    summary = reverse("business_reviews_summary", args=[reseller.slug, ent.remote_id])
    overview = client.get(reverse("business_detail", args=[reseller.slug, ent.remote_id]))
    page = overview.content.decode()
    assert f'data-rollup-src="{summary}?fragment=1"' in page
    assert f'href="{summary}"' in page  # the same figures without JavaScript

    total, average = expected_reviews(remote)
    assert total > 0
    fragment = client.get(f"{summary}?fragment=1")
    assert fragment.status_code == 200
    text = fragment.content.decode()
    assert "<html" not in text  # the card alone, put in place by the overview
    assert f'<span class="figure">{total:,}</span>' in text
    assert f'<span class="figure">{average:.2f} ★</span>' in text
    assert "could not be fetched" not in text

    full = client.get(summary).content.decode()
    assert "<html" in full and f"{average:.2f} ★" in full


def test_its_reviews_tab_is_not_offered_and_asks_the_provider_nothing(enterprise,
                                                                       monkeypatch):
    client, reseller, ent, _ = enterprise
    asked = []
    original = ProviderClient.review_count_by_rating
    monkeypatch.setattr(ProviderClient, "review_count_by_rating",
                        lambda self, *a, **k: asked.append(a) or original(self, *a, **k))
    reviews = reverse("business_reviews", args=[reseller.slug, ent.remote_id])
    overview = client.get(reverse("business_detail", args=[reseller.slug, ent.remote_id]))
    assert f'href="{reviews}"' not in overview.content.decode()
    page = client.get(reviews).content.decode()
    # It used to forward the call, and show the provider's refusal (1011).
    assert "Review counts belong to a single location" in page
    assert "could not be fetched" not in page and asked == []


def test_a_provider_that_cannot_answer_is_said_on_the_card(enterprise, settings):
    client, reseller, ent, _ = enterprise
    reseller.set_api_key("a-key-the-sandbox-does-not-know")
    reseller.save()
    summary = reverse("business_reviews_summary", args=[reseller.slug, ent.remote_id])
    response = client.get(f"{summary}?fragment=1")
    assert response.status_code == 200
    assert "The review count could not be fetched." in response.content.decode()

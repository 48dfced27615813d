"""Pages and operations of one business apply to the types of business the provider supports
them for: the tabs offer only those, an unsupported page says what applies instead, the API
answers 409 naming the rule, and nothing is asked of the provider."""

import pytest
from django.urls import reverse

from accounts import provider_access
from accounts.business_types import view_business_types
from accounts.models import Business, Role
from outbox.models import OutboxEntry
from provider import ProviderClient
from tests.accounts.ui_factories import make_tree
from tests.factories import token_client

pytestmark = pytest.mark.django_db

LOCATION_ONLY_PAGES = ["listing_edit", "business_media", "business_reviews",
                       "business_hierarchy"]
EVERY_TYPE_PAGES = ["business_detail", "business_qna"]


@pytest.fixture
def tree(member_client):
    client, membership = member_client(Role.MANAGER)
    return client, membership, make_tree(membership.reseller)


@pytest.fixture
def no_provider(monkeypatch):
    """Fails the test on any call to the provider."""
    def refuse(*args, **kwargs):
        raise AssertionError("the provider was asked")
    monkeypatch.setattr(ProviderClient, "_fetch", refuse)
    monkeypatch.setattr(provider_access, "provider_client", refuse)


def url(name, business):
    return reverse(name, args=[business.reseller.slug, business.remote_id])


def tab_links(page: str, business) -> set[str]:
    nav = page.split('<nav class="tabs" aria-label="Business">', 1)[1].split("</nav>", 1)[0]
    return {name for name in LOCATION_ONLY_PAGES + EVERY_TYPE_PAGES
            if f'href="{url(name, business)}"' in nav}


def test_a_location_offers_every_tab(tree):
    client, _, tree_ = tree
    page = client.get(url("business_detail", tree_.a)).content.decode()
    assert tab_links(page, tree_.a) == set(LOCATION_ONLY_PAGES + EVERY_TYPE_PAGES)
    assert ">Listing status</a>" in page


@pytest.mark.parametrize("which", ["ent", "sub"])
def test_an_enterprise_or_sub_reseller_offers_only_what_applies_to_it(tree, which):
    client, _, tree_ = tree
    container = getattr(tree_, which)
    for name in EVERY_TYPE_PAGES:
        page = client.get(url(name, container)).content.decode()
        assert tab_links(page, container) == set(EVERY_TYPE_PAGES), name
    assert ">Overview</a>" in client.get(url("business_detail", container)).content.decode()


@pytest.mark.parametrize("name", LOCATION_ONLY_PAGES)
def test_a_location_only_page_of_an_enterprise_says_what_applies_instead(tree, no_provider,
                                                                         name):
    client, _, tree_ = tree
    response = client.get(url(name, tree_.ent))
    assert response.status_code == 200
    page = response.content.decode()
    assert "belong to a single location" in page
    assert "Burger Brand is an enterprise." in page
    within = reverse("business_list", args=[tree_.ent.reseller.slug])
    assert f'href="{within}?type=Business&amp;within={tree_.ent.remote_id}">Its 2 locations</a>' \
        in page
    assert f'href="{url("business_detail", tree_.ent)}"' in page
    # Only what applies to it is offered, and no provider code is shown.
    assert tab_links(page, tree_.ent) == set(EVERY_TYPE_PAGES)
    assert "1043" not in page and "1011" not in page


def test_a_change_sent_to_such_a_page_is_refused_and_nothing_is_queued(tree, no_provider):
    client, _, tree_ = tree
    response = client.post(url("business_media", tree_.ent), {
        "url": "https://images.example.com/front.jpg", "media_format": "PHOTO",
        "category": "EXTERIOR", "description": "Front"})
    assert response.status_code == 409
    assert "Photos and videos belong to a single location" in response.content.decode()
    response = client.post(url("listing_edit", tree_.ent), {"action": "send"})
    assert response.status_code == 409
    assert not OutboxEntry.unscoped.exists()


def test_the_declaration_is_read_from_the_view(tree):
    _, _, tree_ = tree
    args = (tree_.ent.reseller.slug, tree_.ent.remote_id)
    assert not view_business_types("business_media", *args).supports(tree_.ent)
    assert view_business_types("business_media", *args).supports(tree_.a)
    assert view_business_types("business_qna", *args).supports(tree_.ent)


# -- the API -----------------------------------------------------------------------------------

API_LOCATION_ONLY = [
    ("get", "api_business_media"), ("post", "api_business_media"),
    ("get", "api_review_counts"), ("get", "api_listing"), ("get", "api_listing_submission_list"),
    ("post", "api_listing_submission_list"), ("get", "api_listing_status"),
    ("post", "api_listing_status_refresh"), ("get", "api_business_hierarchy"),
    ("put", "api_business_hierarchy"),
]


@pytest.fixture
def api(tree):
    _, membership, tree_ = tree
    return token_client(membership, role=Role.MANAGER), tree_


@pytest.mark.parametrize(("method", "name"), API_LOCATION_ONLY)
def test_the_api_answers_409_naming_the_rule_for_an_enterprise(api, no_provider, method, name):
    client, tree_ = api
    response = getattr(client, method)(url(name, tree_.ent), {}, format="json")
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["code"] == "unsupported_business_type"
    assert "belong to a single location" in body["message"]
    assert "Burger Brand is an enterprise" in body["message"]
    assert f"within={tree_.ent.remote_id}" in body["message"]
    assert not OutboxEntry.unscoped.exists()


def test_the_api_still_serves_a_location_and_every_type_where_it_applies(api):
    client, tree_ = api
    assert client.get(url("api_business_media", tree_.a)).status_code == 200
    assert client.get(url("api_listing", tree_.a)).status_code == 200
    assert client.get(url("api_business_hierarchy", tree_.a)).status_code == 200
    assert client.get(url("api_business_detail", tree_.ent)).status_code == 200


def test_an_unknown_business_is_still_404_not_409(api):
    client, tree_ = api
    response = client.get(reverse("api_business_media", args=[tree_.ent.reseller.slug, 1]))
    assert response.status_code == 404


def test_type_labels_on_the_overview_are_words(tree):
    client, _, tree_ = tree
    page = client.get(url("business_detail", tree_.sub)).content.decode()
    assert "Enterprise (locations)" in page and ">Enterprise-Location<" not in page
    Business.unscoped.filter(pk=tree_.c.pk).update(status="inactive")
    assert "<td>Inactive</td>" in client.get(url("business_detail", tree_.sub)).content.decode()


def test_the_tree_names_a_status_in_words(tree):
    client, membership, tree_ = tree
    Business.unscoped.filter(pk=tree_.ent.pk).update(status="demo")
    page = client.get(reverse("business_tree", args=[membership.reseller.slug])).content.decode()
    assert '<span class="badge info">Demo</span>' in page and ">demo<" not in page

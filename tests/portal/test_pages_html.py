"""Every page of a reseller renders for its owner with valid, accessible basics: unique ids
(so each label points at its own field) and a label for every visible form control."""

import re
from collections import Counter

import pytest
from django.urls import reverse

from accounts.models import Role
from tests.factories import BusinessFactory

pytestmark = pytest.mark.django_db

ACCOUNT_PAGES = ["tenant_home", "business_list", "business_tree", "competitor_metrics",
                 "competitive_ranking", "survey_responses", "custom_field_list", "ai_search",
                 "subscription_list", "sync_run_list", "settings_connection", "settings_members",
                 "settings_audit"]
BUSINESS_PAGES = ["business_detail", "business_hierarchy", "listing_edit", "business_qna",
                  "business_media", "business_reviews"]


@pytest.fixture
def pages(member_client, settings):
    settings.PROVIDER_MAX_RETRIES = 0
    client, membership = member_client(Role.OWNER)
    location = BusinessFactory(reseller=membership.reseller)
    slug = membership.reseller.slug
    urls = [reverse(name, args=[slug]) for name in ACCOUNT_PAGES]
    urls += [reverse(name, args=[slug, location.remote_id]) for name in BUSINESS_PAGES]
    return client, urls


def test_every_page_renders_with_unique_ids_and_labelled_controls(pages):
    client, urls = pages
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        ids = Counter(re.findall(r'\sid="([^"]+)"', html))
        assert not [i for i, n in ids.items() if n > 1], (url, ids.most_common(3))
        labelled = set(re.findall(r'<label[^>]*\sfor="([^"]+)"', html))
        # A control inside its <label> is labelled by it.
        labelled |= set(re.findall(r'<label[^>]*>\s*<input[^>]*\sid="([^"]+)"', html))
        unlabelled = []
        for tag in re.findall(r"<(?:input|select|textarea)\b[^>]*>", html):
            found = re.search(r'\sid="([^"]+)"', tag)
            if (found is None or re.search(r'type="(?:hidden|submit|button)"', tag)
                    or "aria-label=" in tag or found.group(1) in labelled):
                continue
            unlabelled.append(found.group(1))
        assert not unlabelled, (url, unlabelled[:5])


@pytest.mark.django_db
def test_every_page_links_the_api_tokens_the_api_docs_and_the_password_change(client):
    """They were reachable only by typing their address."""
    from django.urls import reverse

    from accounts.models import Role
    from tests.factories import MembershipFactory

    membership = MembershipFactory(role=Role.VIEWER)
    client.force_login(membership.user)
    page = client.get(reverse("tenant_home", args=[membership.reseller.slug])).content.decode()
    for url in (reverse("api_tokens", args=[membership.reseller.slug]), reverse("api_docs"),
                reverse("password_change")):
        assert f'href="{url}"' in page, url

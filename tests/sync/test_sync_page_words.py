"""The sync pages name the provider's refusals in words, not by their HTTP status (issue 15)."""

import pytest
from django.urls import reverse

from accounts.models import Role
from tests.accounts.ui_factories import SyncRunFactory

pytestmark = pytest.mark.django_db

EXPLANATION = ("Requests the provider refused as too many at once (HTTP 429); they are tried "
               "again after a pause")


@pytest.mark.parametrize("page", ["sync_run_list", "sync_run_detail"])
def test_rate_limited_requests_are_named_in_words_with_their_explanation(member_client, page):
    client, membership = member_client(Role.VIEWER)
    run = SyncRunFactory(reseller=membership.reseller, requests_made=120, rate_limited=7)
    args = [membership.reseller.slug] + ([run.pk] if page == "sync_run_detail" else [])
    body = client.get(reverse(page, args=args)).content.decode()
    assert ">Rate-limited</" in body and f'title="{EXPLANATION}"' in body
    assert "429s" not in body
    assert ">7</" in body

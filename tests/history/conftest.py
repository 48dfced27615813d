"""A reseller on the embedded sandbox over real HTTP, and known histories written row by row."""

from __future__ import annotations

import io
import json
from datetime import date

import pytest
from django.core.management import call_command
from django.utils import timezone

from history.models import AccountDay, BusinessDay
from sandbox.seeding import seed_partner
from tests.factories import ResellerFactory

KEY = "history-partner-key-0001"


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.SYNC_FETCH_THREADS = 1
    settings.DATA_DIR = tmp_path  # a fresh file rate limiter per test


@pytest.fixture
def seeded(live_server):
    return seed_partner(api_key=KEY, locations=6, seed=11, rate_limit=(1000, 1))


@pytest.fixture
def sandbox_reseller(seeded, live_server):
    return ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                           provider_base_url=f"{live_server.url}/sandbox",
                           rate_limit_count=1000)


def run_sync(reseller, *only: str) -> dict:
    """A sync in the foreground, as `manage.py sync` runs it; its JSON summary."""
    out = io.StringIO()
    call_command("sync", reseller.slug, "--json", *(["--only", *only] if only else []),
                 stdout=out, stderr=io.StringIO())
    outcome = json.loads(out.getvalue().strip().splitlines()[-1])
    assert outcome["status"] == "succeeded", outcome
    return outcome


def figures(**values) -> dict:
    """A day's figures: zeros, no review counts, and what is given."""
    row = {"locations": 0, "reports": 0, "total_sites": 0, "synced": 0, "submitted": 0,
           "need_updates": 0, "opted_out": 0, "not_connected": 0, "needs_action": 0,
           "reviews": None, "rating_1": None, "rating_2": None, "rating_3": None,
           "rating_4": None, "rating_5": None, "recorded_at": timezone.now()}
    row.update(values)
    return row


def business_day(business, day: date, **values) -> BusinessDay:
    return BusinessDay.unscoped.create(reseller=business.reseller, business=business, day=day,
                                       **figures(**values))


def account_day(reseller, day: date, **values) -> AccountDay:
    return AccountDay.unscoped.create(reseller=reseller, day=day, **figures(**values))

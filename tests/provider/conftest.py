"""Fixtures of the provider client tests: a stubbed HTTP layer and a client that never sleeps."""

from __future__ import annotations

import random
from typing import Any

import pytest
import responses

from provider import ProviderClient

from .helpers import API_KEY, BASE_URL, SleepRecorder


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def make_client(sleeps):
    def make(**overrides: Any) -> ProviderClient:
        options: dict[str, Any] = {"sleep": sleeps, "rng": random.Random(7)}
        options.update(overrides)
        base_url = options.pop("base_url", BASE_URL)
        api_key = options.pop("api_key", API_KEY)
        return ProviderClient(base_url, api_key, **options)

    return make


@pytest.fixture
def client(make_client) -> ProviderClient:
    return make_client()


@pytest.fixture
def stub():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock

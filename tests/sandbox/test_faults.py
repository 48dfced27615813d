"""Fault injection per partner: added latency and a share of HTTP 500 replies."""

from __future__ import annotations

import time

from sandbox.faults import maybe_fail
from sandbox.models import PartnerAccount
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB


def children(api, seeded):
    return api.get("/v1/business/child/all", params={"pid": seeded["account_number"]})


def test_added_latency(api, seeded, partner):
    partner.latency_ms = 300
    partner.save()
    started = time.monotonic()
    assert children(api, seeded).status_code == 200
    assert time.monotonic() - started >= 0.3


def test_error_rate_one_fails_every_request(api, seeded, partner):
    partner.error_rate = 1.0
    partner.save()
    for _ in range(3):
        assert_error(children(api, seeded), 500, 500)


def test_error_rate_zero_never_fails(api, seeded):
    assert all(children(api, seeded).status_code == 200 for _ in range(5))


def test_error_rate_is_a_fraction():
    partner = PartnerAccount(error_rate=0.3)
    failures = 0
    for _ in range(2000):
        try:
            maybe_fail(partner)
        except Exception:  # noqa: BLE001
            failures += 1
    assert 450 < failures < 750


def test_seeder_sets_faults_and_keeps_them_when_not_given(transactional_db):
    from sandbox.seeding import seed_partner

    first = seed_partner(
        api_key="faulty", locations=2, rate_limit="7/30", latency_ms=12, error_rate=0.25
    )
    assert (first["rate_limit"], first["latency_ms"], first["error_rate"]) == ("7/30", 12, 0.25)
    again = seed_partner(api_key="faulty", locations=2)
    assert (again["rate_limit"], again["latency_ms"], again["error_rate"]) == ("7/30", 12, 0.25)

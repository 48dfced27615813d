"""Fault injection per partner: added latency and a share of requests answered with HTTP 500."""

from __future__ import annotations

import secrets
import time

from sandbox.errors import ApiError
from sandbox.models import PartnerAccount

_RESOLUTION = 1_000_000


def add_latency(partner: PartnerAccount) -> None:
    if partner.latency_ms:
        time.sleep(partner.latency_ms / 1000)


def maybe_fail(partner: PartnerAccount) -> None:
    """Answer HTTP 500 for a fraction ``error_rate`` of requests, drawn independently each time."""
    rate = partner.error_rate
    if rate <= 0:
        return
    if rate >= 1 or secrets.randbelow(_RESOLUTION) < rate * _RESOLUTION:
        raise ApiError(500, 500, "Internal server error")

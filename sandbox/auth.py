"""Partner API keys: only a SHA-256 hash and a short display prefix are stored."""

from __future__ import annotations

import hashlib

from django.http import HttpRequest

from sandbox.errors import ApiError
from sandbox.models import PartnerAccount

KEY_HEADER = "x-api-key"
KEY_PREFIX_LENGTH = 8


def hash_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def key_prefix(api_key: str) -> str:
    """Enough of the key to recognise it, never enough to use it: at most a third of it."""
    return api_key[: min(KEY_PREFIX_LENGTH, len(api_key) // 3)]


def authenticate(request: HttpRequest, *, missing_key_status: int = 401) -> PartnerAccount:
    """The partner whose key the request carries in ``x-api-key``.

    A key sent only as the old ``api_key`` query parameter is ignored, so it counts as missing,
    as it does at the provider since the key moved to the header. The provider files a missing
    key (1167) under 401 except on review count by rating, which passes 400.
    """
    api_key = request.headers.get(KEY_HEADER, "").strip()
    if not api_key:
        raise ApiError(missing_key_status, 1167, "API key is missing")
    partner = PartnerAccount.objects.filter(key_hash=hash_key(api_key)).first()
    if partner is None:
        raise ApiError(401, 1161, "Invalid API key")
    return partner

"""Building a provider client for one reseller, at the moment of use."""

from __future__ import annotations

import functools

from django.conf import settings

from accounts.models import Reseller
from portal.outbound import check_provider_base_url
from provider import FileRateLimiter, ProviderClient, RateLimiter, RedisRateLimiter


@functools.cache
def shared_rate_limiter() -> RateLimiter:
    """One limiter per process, shared through Redis, or through files on a single host."""
    if settings.REDIS_URL:
        return RedisRateLimiter(settings.REDIS_URL)
    return FileRateLimiter(settings.DATA_DIR / "ratelimit")


def provider_client(*, tenant: Reseller, **options) -> ProviderClient:
    """A client with the reseller's decrypted key and its share of the provider's rate limit.

    Raises CredentialError when the key cannot be decrypted and UnsafeURL when the base URL
    may not be called; never falls back to another key.
    """
    return ProviderClient(
        check_provider_base_url(tenant.provider_base_url),
        tenant.api_key(),
        rate_limiter=shared_rate_limiter(),
        rate_limit_key=f"reseller-{tenant.pk}-{tenant.api_key_fingerprint}",
        rate_limit=(tenant.rate_limit_count, tenant.rate_limit_seconds),
        timeout=(settings.PROVIDER_CONNECT_TIMEOUT, settings.PROVIDER_READ_TIMEOUT),
        max_retries=settings.PROVIDER_MAX_RETRIES,
        backoff_base=settings.PROVIDER_BACKOFF_BASE_SECONDS,
        **options,
    )

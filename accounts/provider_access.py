"""Access to the provider for one reseller: its client, built at the moment of use with the
reseller's key, and what a failed call means for the person waiting on it."""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from accounts.credentials import CredentialError
from accounts.models import Reseller
from portal.exceptions import ProviderUnavailable
from portal.outbound import UnsafeURL, check_provider_base_url, url_origin
from provider import (
    AUTO,
    AdaptivePacer,
    AuthError,
    FileRateLimiter,
    FileStateStore,
    NotFound,
    ProviderClient,
    ProviderError,
    RateLimited,
    RateLimiter,
    RedisRateLimiter,
    RedisStateStore,
    Transient,
)

logger = logging.getLogger(__name__)


@functools.cache
def shared_rate_limiter() -> RateLimiter:
    """One limiter per process, shared through Redis, or through files on a single host."""
    if settings.REDIS_URL:
        return RedisRateLimiter(settings.REDIS_URL,
                                fallback_processes=settings.PROVIDER_RATE_LIMIT_PROCESSES)
    return FileRateLimiter(settings.DATA_DIR / "ratelimit")


@functools.cache
def _shared_pacer(redis_url: str, data_dir: str, processes: int) -> AdaptivePacer:
    store = (RedisStateStore(redis_url, fallback_processes=processes) if redis_url
             else FileStateStore(Path(data_dir) / "pace"))
    return AdaptivePacer(store)


def shared_pacer() -> AdaptivePacer:
    """The pacer of the connections whose rate limit is learned (`auto`), shared like the
    limiter: what one worker learns, every worker uses, and the next run starts from it."""
    return _shared_pacer(settings.REDIS_URL or "", str(settings.DATA_DIR),
                         settings.PROVIDER_RATE_LIMIT_PROCESSES)


def rate_limit_key(tenant: Reseller) -> str:
    # Per key: a new key may come with another limit.
    return f"reseller-{tenant.pk}-{tenant.api_key_fingerprint}"


def learned_rate(tenant: Reseller) -> float | None:
    """The rate (requests a second) the reseller's connection has learned, if it learns one."""
    if not tenant.rate_limit_auto or not tenant.has_api_key:
        return None
    return shared_pacer().learned_rate(rate_limit_key(tenant))


class KeyBoundElsewhere(CredentialError):
    """The stored key was entered for another address than the current base URL."""


KEY_BOUND_ELSEWHERE = ("The API key was entered for another provider address than the current "
                       "base URL; an owner must enter the key again in Settings.")


def provider_client(*, tenant: Reseller, **options) -> ProviderClient:
    """A client with the reseller's decrypted key and its share of the provider's rate limit.

    Raises CredentialError when the key cannot be decrypted or was entered for another origin
    than the base URL's, and UnsafeURL when the base URL may not be called; never falls back to
    another key.
    """
    base_url = check_provider_base_url(tenant.provider_base_url)
    api_key = tenant.api_key()
    # Whatever changed the base URL (admin, a bug, a raw update), the key goes only to the
    # address it was entered with: a new address must be given the key again.
    if not tenant.api_key_origin or url_origin(base_url) != tenant.api_key_origin:
        raise KeyBoundElsewhere(KEY_BOUND_ELSEWHERE)
    return ProviderClient(
        base_url,
        api_key,
        rate_limiter=shared_pacer() if tenant.rate_limit_auto else shared_rate_limiter(),
        rate_limit_key=rate_limit_key(tenant),
        rate_limit=(AUTO if tenant.rate_limit_auto
                    else (tenant.rate_limit_count, tenant.rate_limit_seconds)),
        dialect=tenant.wire_dialect,
        timeout=(settings.PROVIDER_CONNECT_TIMEOUT, settings.PROVIDER_READ_TIMEOUT),
        max_retries=settings.PROVIDER_MAX_RETRIES,
        backoff_base=settings.PROVIDER_BACKOFF_BASE_SECONDS,
        **options,
    )


def provider_error_message(exc: Exception) -> str:
    """What a user reads when a provider call failed: what happened and what to do (never a
    key or a stack trace)."""
    if isinstance(exc, KeyBoundElsewhere):
        return str(exc)
    if isinstance(exc, CredentialError):
        return "This reseller has no usable API key; an owner must enter one in Settings."
    if isinstance(exc, UnsafeURL):
        return f"The provider base URL may not be called: {exc}"
    code = f" (code {exc.code})" if getattr(exc, "code", None) is not None else ""
    if isinstance(exc, AuthError):
        return (f"The provider rejected this reseller's API key{code}; an owner must enter a "
                "new one in Settings.")
    if isinstance(exc, RateLimited):
        return "The provider is limiting requests right now; try again in a minute."
    if isinstance(exc, Transient):
        return f"The provider did not answer properly ({exc.message}); try again later."
    if isinstance(exc, NotFound):
        return f"The provider does not know this business{code}: {exc.message}"
    if isinstance(exc, ProviderError):
        return f"The provider refused the request{code}: {exc.message}"
    return "The provider could not be reached."


# -- what a failed call means ---------------------------------------------------------------
# One policy for every caller (a page, the API, the sync, the outbox, provider events, the
# connection test): a rate limit or a passing failure is worth trying again later; a refused key
# flags the reseller; anything else is a refusal to report as it is.

RETRYABLE = (RateLimited, Transient)


def provider_failure_is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, ProviderError) and exc.retryable


def provider_key_rejected(*, tenant: Reseller, code: int | None = None) -> bool:
    """The provider refused the reseller's key: flag it, so that every page tells an owner to
    enter the key again (a new key, or a test that works, clears the flag). A suspended
    reseller stays suspended. Returns whether the flag was raised now (the caller records it
    once)."""
    flagged = (Reseller.objects.filter(pk=tenant.pk, status=Reseller.Status.ACTIVE)
               .update(status=Reseller.Status.KEY_REJECTED))
    if flagged:
        tenant.status = Reseller.Status.KEY_REJECTED
        logger.warning("reseller %s: the provider rejected its API key (code %s)", tenant.pk,
                       code)
    return bool(flagged)


@contextmanager
def provider_call(*, tenant: Reseller) -> Iterator[ProviderClient]:
    """A client for one request of a page; failures become `ProviderUnavailable`."""
    try:
        client = provider_client(tenant=tenant)
    except (CredentialError, UnsafeURL) as exc:
        raise ProviderUnavailable(provider_error_message(exc)) from exc
    with client:
        try:
            yield client
        except ProviderError as exc:
            logger.info("provider call for reseller %s failed: %s", tenant.pk, str(exc))
            if isinstance(exc, AuthError):
                provider_key_rejected(tenant=tenant, code=exc.code)
            raise ProviderUnavailable(provider_error_message(exc), code=exc.code,
                                      refused=not exc.retryable) from exc

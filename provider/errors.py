"""Typed errors of the provider client, and the mapping from an HTTP reply to one of them.

Every error carries the provider's ``code`` and ``message`` and the ``http_status`` (each may be
``None`` when the failure happened before a reply, e.g. a timeout). Callers branch on the class:

- ``AuthError``: the key is missing or invalid (1161, 1167; HTTP 401 without a code). Never
  retried.
- ``RateLimited``: HTTP 429 / code 89, or a local limiter wait too long to sleep in-process.
- ``NotFound``: the business, location or subscription does not exist (1011, 1175, 1005;
  HTTP 404 without a code).
- ``Rejected``: a 4xx naming what was wrong with the request (listing 2xxx, 5022, 2174, ...).
- ``Transient``: 5xx, timeouts, connection errors, oversized or unparsable replies.

``retry_after`` (seconds) is the delay the client suggests before trying again, set on
``RateLimited`` and ``Transient`` when the client gave up retrying in-process, so that a Celery
task can ``retry(countdown=exc.retry_after)``. ``outcome_unknown`` is true when a request that is
not safe to repeat may have reached the provider (see ``Transient``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

RATE_LIMIT_CODE = 89
AUTH_CODES = frozenset({1161, 1167})
# 1005 is "subscription not found"; the provider answers it with HTTP 500, yet it is final.
NOT_FOUND_CODES = frozenset({1005, 1011, 1175})


class ProviderError(Exception):
    """Base of every error the client raises about a provider call."""

    #: Whether the client retries this kind of error by itself (with backoff).
    retryable: bool = False

    def __init__(
        self,
        code: int | None,
        message: str,
        http_status: int | None,
        *,
        operation: str | None = None,
        retry_after: float | None = None,
        outcome_unknown: bool = False,
    ) -> None:
        super().__init__(code, message, http_status)
        self.code = code
        self.message = message
        self.http_status = http_status
        self.operation = operation
        self.retry_after = retry_after
        self.outcome_unknown = outcome_unknown

    def __str__(self) -> str:
        details = [f"code {self.code}" if self.code is not None else None]
        details.append(f"HTTP {self.http_status}" if self.http_status is not None else None)
        details.append(self.operation)
        if self.retry_after is not None:
            details.append(f"retry after {self.retry_after:.1f}s")
        if self.outcome_unknown:
            details.append("outcome unknown")
        suffix = ", ".join(d for d in details if d)
        return f"{self.message} ({suffix})" if suffix else self.message

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, "
            f"http_status={self.http_status!r}, operation={self.operation!r}, "
            f"retry_after={self.retry_after!r}, outcome_unknown={self.outcome_unknown!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword attributes would be lost by Exception's default pickling (Celery pickles
        # exceptions into its result backend).
        return (
            _rebuild_error,
            (type(self), self.code, self.message, self.http_status, self._keywords()),
        )

    def _keywords(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "retry_after": self.retry_after,
            "outcome_unknown": self.outcome_unknown,
        }


def _rebuild_error(
    cls: type[ProviderError],
    code: int | None,
    message: str,
    http_status: int | None,
    keywords: dict[str, Any],
) -> ProviderError:
    return cls(code, message, http_status, **keywords)


class AuthError(ProviderError):
    """The API key is missing (1167) or invalid (1161): the reseller needs a new key."""


class RateLimited(ProviderError):
    """The provider answered 429 / code 89, or the local limiter would make us wait too long.

    ``retry_after`` holds the server's Retry-After hint when it sent one (the provider does not;
    the client never relies on it) or, once the client gives up, the delay it suggests.
    """

    retryable = True


class RateLimitWaitTooLong(RateLimited):
    """The shared rate limiter has no free slot within the allowed wait.

    Raised before any request was sent; ``retry_after`` is the wait the limiter predicted.
    """

    def __init__(self, retry_after: float, message: str | None = None) -> None:
        super().__init__(
            None,
            message or f"local rate limit: next slot in {retry_after:.1f}s",
            None,
            retry_after=retry_after,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.retry_after, self.message))


class NotFound(ProviderError):
    """The business, location or subscription is unknown to the provider (1011, 1175, 1005)."""


class Rejected(ProviderError):
    """The provider refused the request as invalid (a 4xx with a provider code). Never retried."""


class Transient(ProviderError):
    """A failure that may go away: 5xx, timeout, connection error, oversized or non-JSON reply.

    ``outcome_unknown`` is true when the request was not safe to repeat (create listing, add
    media, create custom field, subscribe) and may have been processed: a read timeout, a
    connection dropped after sending, a 5xx or an unreadable 200. The client does not retry it;
    the caller should reconcile (read the current state back) before sending it again.
    """

    retryable = True


class WriteNotRecorded(Transient):
    """A write was not sent because its ``WriteObserver`` could not record that it leaves
    (see ``ProviderClient.observe_writes``). Nothing left; not retried in-process, since the
    caller could not record the next attempt either."""

    retryable = False


def error_body_fields(body: Any) -> tuple[int | None, str | None]:
    """Return ``(code, message)`` of an error body in either shape the provider has used.

    Current shape: ``{"code": int, "message": str}``; old shape: ``{"errorCode", "errorMessage"}``.
    """
    if not isinstance(body, Mapping):
        return None, None
    raw_code = body.get("code", body.get("errorCode"))
    raw_message = body.get("message", body.get("errorMessage"))
    code: int | None
    try:
        code = int(raw_code) if raw_code is not None and not isinstance(raw_code, bool) else None
    except (TypeError, ValueError):
        code = None
    message = str(raw_message) if raw_message is not None else None
    return code, message


def error_from_reply(
    http_status: int,
    body: Any,
    *,
    operation: str | None = None,
    retry_after: float | None = None,
    redact: Callable[[str], str] = lambda text: text,
) -> ProviderError:
    """Map a non-2xx reply (status and decoded JSON body, or None) to a typed error.

    ``redact`` cleans the provider's message (the client removes its key from it, in case a
    server ever echoes the key back).
    """
    code, message = error_body_fields(body)
    text = redact(message) if message else f"provider replied HTTP {http_status}"
    keywords: dict[str, Any] = {"operation": operation}

    # The body's code decides before the status: the provider files some errors under another
    # status than their meaning (1011 "Business id is invalid" under 401 on three operations,
    # 1167 under 400, Q&A validation codes under 401). A 401 carrying 1011 is an unknown
    # business, not a rejected key.
    if code == RATE_LIMIT_CODE or http_status == 429:
        return RateLimited(code, text, http_status, retry_after=retry_after, **keywords)
    if code in AUTH_CODES:
        return AuthError(code, text, http_status, **keywords)
    if code in NOT_FOUND_CODES:
        return NotFound(code, text, http_status, **keywords)
    if code is not None and 400 <= http_status < 500:
        return Rejected(code, text, http_status, **keywords)
    if http_status == 401:
        return AuthError(code, text, http_status, **keywords)
    if http_status == 404:
        return NotFound(code, text, http_status, **keywords)
    if http_status >= 500:
        return Transient(code, text, http_status, **keywords)
    if 400 <= http_status < 500:
        return Rejected(code, text, http_status, **keywords)
    # A redirect or another unexpected status: not a provider verdict, and repeating it would
    # give the same answer (redirects are not followed so that the key never leaves the host).
    return ProviderError(code, text, http_status, **keywords)

"""One provider call done right: rate limit, send, bound the reply, map errors, retry.

The operations of ``client.py`` describe *what* to send; this module decides *how*: the shared
rate limiter is waited on before every attempt, every request has a timeout, replies are read
up to a size bound, failures become typed errors, and ``RateLimited``/``Transient`` failures are
retried with backoff unless the request may already have taken effect (see ``idempotent``).
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError

from .adaptive import AdaptivePacer
from .apikey import ApiKey
from .errors import (
    ProviderError,
    RateLimited,
    RateLimitWaitTooLong,
    Transient,
    WriteNotRecorded,
    error_from_reply,
)
from .ratelimit import RateLimit, RateLimiter
from .retry import RetryPolicy

logger = logging.getLogger("provider.client")

Timeout = float | tuple[float, float]


@dataclass
class ClientStats:
    """Counters of one client's traffic (a sync run records them)."""

    requests: int = 0  # HTTP requests sent, every attempt counted
    rate_limited: int = 0  # 429 replies received
    retries: int = 0  # attempts repeated after a RateLimited/Transient failure
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def _add(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)


@dataclass(frozen=True, slots=True)
class Call:
    """What to send for one operation."""

    operation: str  # e.g. "create_listing"; appears in errors and logs
    method: str
    path: str  # already quoted, starting with "/"
    params: Mapping[str, str] | None = None
    headers: Mapping[str, str] | None = None
    body: Any = None  # JSON-serialisable; None sends no body
    # Safe to send twice: reads, and writes that set state rather than add to it. A request
    # that is not idempotent is retried only when it certainly did not reach the provider.
    idempotent: bool = True
    expect_json: bool = True  # False: the 200 reply has no body worth reading
    # A write (it changes something at the provider): a `WriteObserver` hears when it leaves
    # and what its answer says of its effect.
    writes: bool = False


class WriteObserver(Protocol):
    """Told about each request of a write, so that the moment it leaves can be recorded.

    ``leaving`` is called after any wait for a rate-limit slot, just before the request is
    written to the connection; if it raises, the request is not sent (the error propagates,
    as a ``Transient`` whose outcome is known: nothing left). ``answered`` is called once the
    attempt ends: ``taken`` is False when the provider certainly did not act on the request (a
    429, a refusal, a failure before it left), True when it answered 2xx, None when unknown
    (a timeout or a dropped connection after it left, a 5xx).
    """

    def leaving(self, operation: str) -> None: ...

    def answered(self, operation: str, *, taken: bool | None) -> None: ...


class Transport:
    def __init__(
        self,
        base_url: str,
        api_key: ApiKey,
        *,
        rate_limiter: RateLimiter,
        pacer: AdaptivePacer | None = None,
        rate_limit_key: str | None,
        rate_limit: RateLimit | None,
        timeout: Timeout,
        retry_policy: RetryPolicy,
        session: requests.Session | None,
        max_response_bytes: int,
        pool_maxsize: int,
        sleep: Callable[[float], None],
        rng: random.Random,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._rate_limiter = rate_limiter
        self._pacer = pacer
        self._rate_limit_key = rate_limit_key
        self._rate_limit = rate_limit
        self._timeout = timeout
        self.retry_policy = retry_policy
        self._owns_session = session is None
        self._session = session if session is not None else _pooled_session(pool_maxsize)
        self._max_response_bytes = max_response_bytes
        self._sleep = sleep
        self._rng = rng
        self.stats = ClientStats()
        self.observer: WriteObserver | None = None

    def close(self) -> None:
        if self._owns_session:
            self._session.close()

    # -- retries -------------------------------------------------------------------------------

    def send(self, call: Call) -> Any:
        """Send ``call``, retrying when allowed; return the decoded JSON reply (or None)."""
        policy = self.retry_policy
        retry_number = 0
        while True:
            try:
                return self._attempt(call)
            except RateLimitWaitTooLong:
                raise  # the limiter already waited as long as allowed in-process
            except ProviderError as exc:
                if not exc.retryable or exc.outcome_unknown:
                    raise
                hint = exc.retry_after or 0.0
                if retry_number >= policy.max_retries:
                    exc.retry_after = max(hint, policy.ceiling(retry_number))
                    raise
                delay = max(hint, policy.backoff(retry_number, self._rng))
                if delay > policy.max_wait_in_process:
                    exc.retry_after = delay
                    raise
                logger.info(
                    "provider %s %s: %s, retry %d/%d in %.2fs",
                    call.method,
                    call.path,
                    type(exc).__name__,
                    retry_number + 1,
                    policy.max_retries,
                    delay,
                )
                self.stats._add("retries")
                self._sleep(delay)
                retry_number += 1

    # -- one attempt ---------------------------------------------------------------------------

    def _attempt(self, call: Call) -> Any:
        key = self._rate_limit_key
        if self._pacer is not None and key is not None:
            sent_at = self._pacer.acquire(key, max_wait=self.retry_policy.max_wait_in_process)
            try:
                reply = self._exchange(call)
            except ProviderError as exc:
                # Only the provider's answers teach the pacer; a timeout says nothing of its rate.
                if exc.http_status is not None:
                    self._pacer.record(key, limited=exc.http_status == 429, sent_at=sent_at)
                raise
            self._pacer.record(key, limited=False, sent_at=sent_at)
            return reply
        if self._rate_limit is not None and key is not None:
            self._rate_limiter.acquire(
                key,
                self._rate_limit.count,
                self._rate_limit.seconds,
                max_wait=self.retry_policy.max_wait_in_process,
            )
        return self._exchange(call)

    def _exchange(self, call: Call) -> Any:
        observer = self.observer if call.writes else None
        if observer is not None:
            try:
                observer.leaving(call.operation)
            except Exception as exc:
                raise WriteNotRecorded(None, f"could not record the request before sending "
                                       f"it: {type(exc).__name__}", None,
                                       operation=call.operation) from exc
        try:
            reply = self._exchange_once(call)
        except ProviderError as exc:
            if observer is not None:
                observer.answered(call.operation, taken=_taken(exc))
            raise
        if observer is not None:
            observer.answered(call.operation, taken=True)
        return reply

    def _exchange_once(self, call: Call) -> Any:
        headers = {"Accept": "application/json", **(call.headers or {})}
        headers["x-api-key"] = self._api_key.reveal()
        self.stats._add("requests")
        started = time.monotonic()
        try:
            response = self._session.request(
                call.method,
                self.base_url + call.path,
                params=dict(call.params) if call.params else None,
                json=call.body,
                headers=headers,
                timeout=self._timeout,
                stream=True,  # so that the body can be read up to a bound
                allow_redirects=False,  # a redirect would carry x-api-key to another address
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            self._log(call, "failed", started, type(exc).__name__)
            sent = _may_have_been_sent(exc)
            failure = Transient(
                None,
                f"request failed: {type(exc).__name__}",
                None,
                operation=call.operation,
                outcome_unknown=sent and not call.idempotent,
            )
            failure.request_left = sent
            raise failure from exc

        try:
            content = self._read_bounded(response, call)
        finally:
            response.close()
        self._log(call, response.status_code, started, f"{len(content)} bytes")

        if 200 <= response.status_code < 300:
            if not call.expect_json:
                return None
            return self._decode_success(content, response.status_code, call)

        if response.status_code == 429:
            self.stats._add("rate_limited")
        error = error_from_reply(
            response.status_code,
            _decode_or_none(content),
            operation=call.operation,
            retry_after=_retry_after_seconds(response.headers.get("Retry-After")),
            redact=self._api_key.redact,
        )
        if isinstance(error, Transient) and not call.idempotent:
            error.outcome_unknown = True  # a 5xx after sending: it may have been processed
        if isinstance(error, RateLimited):
            error.outcome_unknown = False  # a 429 is refused before processing
        raise error

    def _read_bounded(self, response: requests.Response, call: Call) -> bytes:
        limit = self._max_response_bytes
        declared = response.headers.get("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise self._unreadable(call, response.status_code, f"reply of {declared} bytes")
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_content(chunk_size=64 * 1024):
                size += len(chunk)
                if size > limit:
                    raise self._unreadable(call, response.status_code, f"reply over {limit} bytes")
                chunks.append(chunk)
        except requests.RequestException as exc:
            # The request was sent and the reply started: a failure here leaves the outcome open.
            raise self._unreadable(
                call, response.status_code, f"reply unreadable: {type(exc).__name__}"
            ) from exc
        return b"".join(chunks)

    def _decode_success(self, content: bytes, status: int, call: Call) -> Any:
        if not content.strip():
            raise self._unreadable(call, status, "empty reply where JSON was expected")
        try:
            return json.loads(content)
        except ValueError:
            raise self._unreadable(call, status, "reply is not JSON") from None

    def _unreadable(self, call: Call, status: int, reason: str) -> Transient:
        return Transient(
            None,
            reason,
            status,
            operation=call.operation,
            outcome_unknown=not call.idempotent,
        )

    def _log(self, call: Call, outcome: object, started: float, detail: str) -> None:
        # Method and path only: no query string, headers or bodies, so never the key.
        logger.debug(
            "provider %s %s -> %s in %.1f ms (%s)",
            call.method,
            call.path,
            outcome,
            (time.monotonic() - started) * 1000,
            detail,
        )


def _taken(exc: ProviderError) -> bool | None:
    """What a failed attempt says of the write's effect (see ``WriteObserver.answered``)."""
    if exc.http_status is None:
        # No reply: nothing was done unless the request left before the failure.
        return None if getattr(exc, "request_left", True) else False
    if isinstance(exc, Transient):
        # A 5xx, or a 2xx whose body could not be read: it may have been (or was) acted on.
        return True if 200 <= exc.http_status < 300 else None
    return False  # a 429 or a refusal: the provider did not act on it


def _pooled_session(pool_maxsize: int) -> requests.Session:
    session = requests.Session()
    # Retries are ours (they know what is safe to repeat); urllib3's stay off.
    adapter = HTTPAdapter(pool_connections=4, pool_maxsize=pool_maxsize, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def _may_have_been_sent(exc: requests.RequestException) -> bool:
    """False only when the failure certainly happened before the request left this host."""
    if isinstance(exc, requests.ConnectTimeout | requests.exceptions.SSLError):
        return False
    reason = exc.args[0] if exc.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    # NewConnectionError (refused, DNS) is a ConnectTimeoutError subclass: nothing was sent.
    return not isinstance(reason, ConnectTimeoutError)


def _decode_or_none(content: bytes) -> Any:
    try:
        return json.loads(content) if content.strip() else None
    except ValueError:
        return None


def _retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta seconds or an HTTP date), if it has one."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)

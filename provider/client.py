"""``ProviderClient``: one method per operation of the provider's interface.

Paths, parameter and header names follow spec/interface.md and spec/parameters.md. Each method
builds a ``Call`` (what to send) and hands it to the ``Transport`` (how to send it: limiter,
timeouts, retries, error mapping), then parses the reply into the types of ``types.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import requests

from .adaptive import AdaptivePacer
from .apikey import ApiKey, HasSecretValue
from .dialects import (
    Dialect,
    category_source_to_wire,
    listing_to_wire,
    review_sources_from_wire,
    review_sources_to_wire,
)
from .errors import Transient
from .formats import DateLike, format_date, format_datetime
from .pagination import Pages, check_window, numbered_pages, offset_pages
from .ratelimit import NullRateLimiter, RateLimit, RateLimiter
from .retry import RetryPolicy
from .transport import Call, ClientStats, Timeout, Transport, WriteObserver
from .types import (
    AiSearchConfiguration,
    Category,
    ChildBusiness,
    CompetitiveRanking,
    CompetitorReviewMetric,
    CustomField,
    CustomFieldSpec,
    LocationStatusReport,
    MediaItem,
    MediaUpload,
    QnaPage,
    ReviewCountByRating,
    Subscription,
    SurveyResponsesPage,
    UnsubscribeResult,
    WebhookAuth,
    parse_list,
)

Id = int | str  # business ids and numbers are long integers; str is accepted as given
ResultT = TypeVar("ResultT")

DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024


def _path(*segments: object) -> str:
    """Join path segments, quoting each so that an id cannot change the path."""
    return "/" + "/".join(quote(str(segment), safe="") for segment in segments)


def _bool_param(value: bool) -> str:
    return "true" if value else "false"


AUTO = "auto"


def _as_rate_limit(value: RateLimit | tuple[int, int] | None) -> RateLimit | None:
    if value is None or isinstance(value, RateLimit):
        return value
    return RateLimit(*value)


def _media_list(payload: Any) -> list[MediaItem]:
    if not isinstance(payload, Mapping):
        raise ValueError(f"media reply: expected a JSON object, got {type(payload).__name__}")
    return parse_list(MediaItem, payload.get("media"), "media")


class ProviderClient:
    """HTTP client of the provider API for one API key (one reseller).

    Build it at the moment of use from the reseller's decrypted key. ``api_key`` is a str or an
    object with a ``.value`` str (the portal's ``Secret``); it never appears in ``repr``,
    exceptions or logs. ``rate_limiter`` with ``rate_limit_key`` (a non-secret identifier of the
    key, e.g. its fingerprint) and ``rate_limit`` (count per seconds) shares the provider's
    per-key limit among every process using the key. ``sleep`` and ``rng`` are injectable so
    that tests do not really wait.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | HasSecretValue,
        *,
        rate_limiter: RateLimiter | AdaptivePacer | None = None,
        rate_limit_key: str | None = None,
        rate_limit: RateLimit | tuple[int, int] | Literal["auto"] | None = None,
        timeout: Timeout = (5, 30),
        max_retries: int = 3,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
        max_wait_in_process: float = 10.0,
        session: requests.Session | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        pool_maxsize: int = 10,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        dialect: Dialect | str = Dialect.NEUTRAL,
    ) -> None:
        key = ApiKey(api_key)
        # Callers speak the neutral names; the wire speaks the connection's dialect.
        self.dialect = Dialect(dialect)
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL")
        if timeout is None:
            raise ValueError("a timeout is required")
        if rate_limiter is not None and (rate_limit_key is None or rate_limit is None):
            raise ValueError("a rate limiter needs rate_limit_key and rate_limit")
        if rate_limit_key is not None and rate_limit_key == key.reveal():
            raise ValueError("rate_limit_key must identify the key, not be the key")
        auto = rate_limit == AUTO
        if auto != isinstance(rate_limiter, AdaptivePacer):
            raise ValueError('rate_limit "auto" goes with an AdaptivePacer, and only with it')
        self._transport = Transport(
            base_url,
            key,
            rate_limiter=NullRateLimiter() if auto else rate_limiter or NullRateLimiter(),
            pacer=rate_limiter if auto else None,
            rate_limit_key=rate_limit_key,
            rate_limit=None if auto else _as_rate_limit(rate_limit),
            timeout=timeout,
            retry_policy=RetryPolicy(
                max_retries=max_retries,
                backoff_base=backoff_base,
                backoff_cap=backoff_cap,
                max_wait_in_process=max_wait_in_process,
            ),
            session=session,
            max_response_bytes=max_response_bytes,
            pool_maxsize=pool_maxsize,
            sleep=sleep,
            rng=rng or random.Random(),  # noqa: S311 - jitter, not cryptography
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    @property
    def stats(self) -> ClientStats:
        """Requests sent, 429s received and retries made by this client."""
        return self._transport.stats

    def close(self) -> None:
        """Close the pooled session (only when the client created it)."""
        self._transport.close()

    def __enter__(self) -> ProviderClient:
        return self

    @contextlib.contextmanager
    def observe_writes(self, observer: WriteObserver) -> Iterator[None]:
        """Tell ``observer`` when each request of a write leaves and what its answer says of
        its effect (see ``WriteObserver``), while the block runs. Reads are not observed."""
        previous, self._transport.observer = self._transport.observer, observer
        try:
            yield
        finally:
            self._transport.observer = previous

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _fetch(self, call: Call, parse: Callable[[Any], ResultT]) -> ResultT:
        payload = self._transport.send(call)
        try:
            return parse(payload)
        except (ValueError, TypeError) as exc:
            raise Transient(
                None,
                f"unexpected reply shape: {exc}",
                200,
                operation=call.operation,
                # A write that was answered but whose reply we cannot read: reconcile first.
                outcome_unknown=not call.idempotent,
            ) from exc

    # -- 1. listing ------------------------------------------------------------------------

    def create_listing(self, business_number: Id, payload: Mapping[str, Any]) -> None:
        """Create, fix, publish and sync a location's listing (empty 200 reply).

        Not idempotent: see ``Transient.outcome_unknown``.
        """
        self._transport.send(
            Call(
                "create_listing",
                "POST",
                _path("v1", "listing", business_number, "create"),
                body=listing_to_wire(payload, self.dialect),
                idempotent=False,
                expect_json=False,
                writes=True,
            )
        )

    # -- 2. competitor review metrics -----------------------------------------------------------

    def competitor_review_metrics(
        self,
        account_number: Id,
        *,
        from_date: DateLike,
        to_date: DateLike,
        business_numbers: Sequence[int] = (),
        sources: Sequence[str] = (),
        brand_ids: Sequence[Id] = (),
        competitor_location_ids: Sequence[Id] = (),
        start_index: int = 0,
        page_size: int = 25,
        sort_order: Literal[0, 1] = 0,
    ) -> list[CompetitorReviewMetric]:
        """One page of competitor review metrics (``sort_order`` 0 ascending, 1 descending)."""
        check_window(start_index, page_size)
        call = Call(
            "competitor_review_metrics",
            "POST",
            _path("v1", "competitors", "review", "metrics"),
            params={
                "startIndex": str(start_index),
                "pageSize": str(page_size),
                "sortOrder": str(sort_order),
            },
            headers={"x-business-number": str(account_number)},
            body={
                "businessNumbers": [int(n) for n in business_numbers],
                "fromDate": format_date(from_date),
                "toDate": format_date(to_date),
                "sources": review_sources_to_wire(sources, self.dialect),
                "brandIds": list(brand_ids),
                "competitorLocationIds": list(competitor_location_ids),
            },
        )
        metrics = self._fetch(
            call, lambda data: parse_list(CompetitorReviewMetric, data, "competitor metrics")
        )
        if self.dialect is Dialect.NEUTRAL:
            return metrics
        return [dataclasses.replace(metric, source=review_sources_from_wire([metric.source])[0])
                if metric.source else metric for metric in metrics]

    def iter_competitor_review_metrics(
        self,
        account_number: Id,
        *,
        from_date: DateLike,
        to_date: DateLike,
        business_numbers: Sequence[int] = (),
        sources: Sequence[str] = (),
        brand_ids: Sequence[Id] = (),
        competitor_location_ids: Sequence[Id] = (),
        start_index: int = 0,
        page_size: int = 25,
        sort_order: Literal[0, 1] = 0,
    ) -> Pages[list[CompetitorReviewMetric]]:
        """Pages of competitor review metrics until a short page or the 100000 window."""

        def fetch(start: int, size: int) -> list[CompetitorReviewMetric]:
            return self.competitor_review_metrics(
                account_number,
                from_date=from_date,
                to_date=to_date,
                business_numbers=business_numbers,
                sources=sources,
                brand_ids=brand_ids,
                competitor_location_ids=competitor_location_ids,
                start_index=start,
                page_size=size,
                sort_order=sort_order,
            )

        return offset_pages(
            fetch,
            count_of=len,
            start=start_index,
            page_size=page_size,
            what="competitor_review_metrics",
        )

    # -- 3. survey responses --------------------------------------------------------------------

    def survey_responses(
        self,
        survey_id: Id,
        *,
        business_number: Id,
        start_date: DateLike,
        end_date: DateLike,
        page: int = 0,
        size: int = 25,
        sort_by: str | None = "date",
        sort_order: Literal["asc", "desc"] | None = "asc",
        include_ticket_ids: bool = False,
    ) -> SurveyResponsesPage:
        """One page (0-based) of a survey's responses.

        Dates are sent as ``MM/DD/YYYY HH:mm:ss``; a bare ``date`` as ``end_date`` means the end
        of that day, so that a range of two dates includes its last day.
        """
        check_window(page * size, size)
        params = {
            "businessNumber": str(business_number),
            "page": str(page),
            "size": str(size),
            "includeTicketId": _bool_param(include_ticket_ids),
        }
        if sort_by is not None:
            params["sortby"] = sort_by
        if sort_order is not None:
            params["sorder"] = sort_order
        call = Call(
            "survey_responses",
            "POST",
            _path("v1", "survey", "ext", "list", "responses", survey_id),
            params=params,
            body={
                "startDate": format_datetime(start_date),
                "endDate": format_datetime(end_date, end_of_day=True),
            },
        )
        return self._fetch(call, SurveyResponsesPage.from_json)

    def iter_survey_responses(
        self,
        survey_id: Id,
        *,
        business_number: Id,
        start_date: DateLike,
        end_date: DateLike,
        first_page: int = 0,
        size: int = 25,
        sort_by: str | None = "date",
        sort_order: Literal["asc", "desc"] | None = "asc",
        include_ticket_ids: bool = False,
    ) -> Pages[SurveyResponsesPage]:
        """Pages of survey responses while ``hasNext`` holds and the window allows."""

        def fetch(page: int, page_size: int) -> SurveyResponsesPage:
            return self.survey_responses(
                survey_id,
                business_number=business_number,
                start_date=start_date,
                end_date=end_date,
                page=page,
                size=page_size,
                sort_by=sort_by,
                sort_order=sort_order,
                include_ticket_ids=include_ticket_ids,
            )

        return numbered_pages(
            fetch,
            count_of=lambda result: len(result.responses),
            has_next_of=lambda result: result.has_next,
            first_page=first_page,
            page_size=size,
            what="survey_responses",
        )

    # -- 4, 5. media ----------------------------------------------------------------------------

    def add_media(
        self, business_number: Id, items: Sequence[MediaUpload | Mapping[str, Any]]
    ) -> list[MediaItem]:
        """Upload media items; returns them with their ``mediaId``.

        Not idempotent: see ``Transient.outcome_unknown``.
        """
        media = [item.to_json() if isinstance(item, MediaUpload) else dict(item) for item in items]
        call = Call(
            "add_media",
            "POST",
            _path("v1", "business", business_number, "upload", "media"),
            body={"media": media},
            idempotent=False,
            writes=True,
        )
        return self._fetch(call, _media_list)

    def get_media(self, business_number: Id) -> list[MediaItem]:
        call = Call("get_media", "GET", _path("v1", "business", business_number, "media", "get"))
        return self._fetch(call, _media_list)

    # -- 6. custom fields -------------------------------------------------------------------------

    def create_custom_field(
        self, account_number: Id, field: CustomFieldSpec | Mapping[str, Any]
    ) -> CustomField:
        """Create a custom field on the account. Not idempotent: see ``outcome_unknown``."""
        call = Call(
            "create_custom_field",
            "POST",
            _path("v1", "business", "public", "custom-fields", "create"),
            headers={"x-business-number": str(account_number)},
            body=field.to_json() if isinstance(field, CustomFieldSpec) else dict(field),
            idempotent=False,
            writes=True,
        )
        return self._fetch(call, CustomField.from_json)

    # -- 7, 8. review reports ---------------------------------------------------------------------

    def review_count_by_rating(
        self,
        business_id: Id,
        *,
        from_date: DateLike,
        to_date: DateLike,
        business_numbers: Sequence[int] = (),
        source_aliases: Sequence[str] = (),
    ) -> ReviewCountByRating:
        call = Call(
            "review_count_by_rating",
            "POST",
            _path("v1", "review", "report", "count-by-rating", business_id),
            body={
                "businessNumbers": [int(n) for n in business_numbers],
                "sourceAlias": review_sources_to_wire(
                    [alias.lower() for alias in source_aliases], self.dialect),
                "fromDate": format_date(from_date),
                "toDate": format_date(to_date),
            },
        )
        return self._fetch(call, ReviewCountByRating.from_json)

    def competitive_ranking(
        self,
        business_id: Id,
        *,
        start_date: DateLike,
        end_date: DateLike,
        review_sites: Sequence[int | str] = (),
    ) -> CompetitiveRanking:
        call = Call(
            "competitive_ranking",
            "POST",
            _path("v2", "competitive", "ranking"),
            params={"businessId": str(business_id)},
            body={
                "startDate": format_date(start_date),
                "endDate": format_date(end_date),
                "reviewSites": [str(site) for site in review_sites],  # numeric ids as strings
            },
        )
        return self._fetch(call, CompetitiveRanking.from_json)

    # -- 9. hierarchy -----------------------------------------------------------------------------

    def update_hierarchy(self, business_id: Id, mapping: Mapping[str, str]) -> None:
        """Set a location's hierarchy levels. Pass every level: omitted ones may be overwritten.

        Idempotent (it sets the mapping), so it is retried like a read.
        """
        self._transport.send(
            Call(
                "update_hierarchy",
                "POST",
                _path(
                    "v1",
                    "business",
                    "business-hierarchy",
                    "location",
                    "update-mapping",
                    business_id,
                ),
                body={str(level): str(value) for level, value in mapping.items()},
                expect_json=False,
                writes=True,
            )
        )

    # -- 10, 11. questions and answers ------------------------------------------------------------

    def get_qna(self, business_id: Id, *, start_index: int = 0, page_size: int = 25) -> QnaPage:
        check_window(start_index, page_size)
        call = Call(
            "get_qna",
            "POST",
            _path("v1", "qna", "get"),
            params={"businessId": str(business_id)},
            body={"startIndex": start_index, "pageSize": page_size},
        )
        return self._fetch(call, QnaPage.from_json)

    def iter_qna(
        self, business_id: Id, *, start_index: int = 0, page_size: int = 25
    ) -> Pages[QnaPage]:
        """Pages of questions until ``totalCount`` is reached or the 100000 window."""
        return offset_pages(
            lambda start, size: self.get_qna(business_id, start_index=start, page_size=size),
            count_of=lambda page: len(page.questions),
            total_of=lambda page: page.total_count,
            start=start_index,
            page_size=page_size,
            what="get_qna",
        )

    def delete_all_qna(self, business_id: Id) -> None:
        """Delete every question and answer of the business (empty 200 reply)."""
        self._transport.send(
            Call(
                "delete_all_qna",
                "DELETE",
                _path("v1", "qna", "question", "deleteAll"),
                params={"businessId": str(business_id)},
                expect_json=False,
                writes=True,
            )
        )

    # -- 12, 13, 14. listing reads ----------------------------------------------------------------

    def location_status(self, business_number: Id) -> LocationStatusReport:
        call = Call(
            "location_status",
            "GET",
            _path("v1", "listing", "status", "location"),
            params={"businessNumber": str(business_number)},
        )
        return self._fetch(call, LocationStatusReport.from_json)

    def category_list(
        self, business_number: Id, *, source_name: str, country_code: str
    ) -> list[Category]:
        """Categories of a source (ENGINE, PROFILE, SOCIAL, MAPS, HEALTHCARE, VENDOR)."""
        call = Call(
            "category_list",
            "GET",
            _path("v1", "listing", business_number, "category-list"),
            params={
                "sourceName": category_source_to_wire(source_name, self.dialect),
                "countryCode": country_code,
            },
        )
        return self._fetch(call, lambda data: parse_list(Category, data, "categories"))

    def ai_search_configuration(self, account_number: Id) -> AiSearchConfiguration:
        call = Call(
            "ai_search_configuration",
            "GET",
            _path("v1", "listing", "searchAi", "public", "account-setup"),
            headers={"x-business-number": str(account_number)},
        )
        return self._fetch(call, AiSearchConfiguration.from_json)

    # -- 15. business tree ------------------------------------------------------------------------

    def child_businesses(self, pid: Id) -> list[ChildBusiness]:
        """Direct children of a reseller, sub-reseller or enterprise."""
        call = Call(
            "child_businesses",
            "GET",
            _path("v1", "business", "child", "all"),
            params={"pid": str(pid)},
        )
        return self._fetch(call, lambda data: parse_list(ChildBusiness, data, "children"))

    # -- 16. subscriptions ------------------------------------------------------------------------

    def subscribe(
        self,
        account_number: Id,
        *,
        webhook_url: str,
        emails: Sequence[str],
        event_name: str,
        auth: WebhookAuth | tuple[str, str] | None = None,
    ) -> Subscription:
        """Subscribe a webhook URL to an event. Not idempotent: see ``outcome_unknown``."""
        if isinstance(auth, tuple):
            auth = WebhookAuth(*auth)
        call = Call(
            "subscribe",
            "POST",
            _path("v1", "subscriptions", "subscribe"),
            params={"businessId": str(account_number)},
            body={
                "webhookUrl": webhook_url,
                "emails": list(emails),
                "eventName": event_name,
                "auth": auth.to_json() if auth is not None else None,
            },
            idempotent=False,
            writes=True,
        )
        return self._fetch(call, Subscription.from_json)

    def unsubscribe(self, subscription_id: str, *, account_number: Id) -> UnsubscribeResult:
        """Delete a webhook subscription. An unknown id raises ``NotFound`` (code 1005).

        Retried like a read: when a retry follows a lost reply, ``NotFound`` means it is gone.
        """
        call = Call(
            "unsubscribe",
            "GET",
            _path("v1", "subscriptions", "unsubscribe", subscription_id),
            params={"businessId": str(account_number)},
            writes=True,
        )
        return self._fetch(call, UnsubscribeResult.from_json)

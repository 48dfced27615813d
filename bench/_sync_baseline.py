"""The baseline of the sync benchmark: the requests of a full sync made by a bare loop.

The same provider client, shared limiter (Redis, under a key of its own) and timeouts as the
sync, and as many requests in flight (W processes of SYNC_FETCH_THREADS threads each), but no
Celery, no database, no chunks and no mirroring: what the provider's rate limit and latency
allow with that concurrency. The tree walk asks the children of every container it knows at
once, SYNC_FETCH_THREADS at a time, as in the sync; then every process takes an even share of
the locations (status report, media, Q&A pages) and of the account resources and keeps its
threads busy until its share is done. Survey responses are read as the sync reads them: each
survey's first page, then its other pages together, SYNC_FETCH_THREADS at a time.
"""

from __future__ import annotations

import math
import multiprocessing
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import date, timedelta

from provider import ProviderClient, RedisRateLimiter, Rejected

# The type the mirror counts as a location and never walks into (accounts.mirroring), without
# importing Django.
LOCATION_TYPE = "Business"
SURVEY_PAGE_SIZE = 100


@dataclass
class BaselineResult:
    wall_s: float
    requests: int
    rate_limited: int
    locations: int
    server_cpu_s: float = 0.0  # filled in by the bench, which knows the server's processes


@dataclass
class BaselineOptions:
    base_url: str
    api_key: str
    account_number: int
    survey_ids: list[int]
    rate_limit: int
    redis_url: str
    processes: int
    threads: int
    qna_page_size: int
    report_lookback_days: int
    timeout: tuple[float, float]
    max_retries: int
    backoff_base: float
    limiter_key: str = ""


def run_baseline(options: BaselineOptions) -> BaselineResult:
    options.limiter_key = f"baseline-{uuid.uuid4().hex}"
    # Spawned, not forked: the bench process holds database connections and Django state that
    # a bare loop must not inherit. The pool starts before the clock does.
    context = multiprocessing.get_context("spawn")
    with context.Pool(options.processes) as pool:
        pool.map(_warm_up, range(options.processes))
        started = time.monotonic()
        with _client(options) as client:
            locations = _walk(client, options.account_number, threads=options.threads)
            walk_requests, walk_limited = client.stats.requests, client.stats.rate_limited
        shares = [(options, locations[i::options.processes], ACCOUNT_FETCHES[i::options.processes])
                  for i in range(options.processes)]
        counts = pool.starmap(_fetch_share, shares)
        wall_s = time.monotonic() - started
    return BaselineResult(wall_s=round(wall_s, 2),
                          requests=walk_requests + sum(r for r, _ in counts),
                          rate_limited=walk_limited + sum(limited for _, limited in counts),
                          locations=len(locations))


def _warm_up(_index: int) -> None:
    return None


def _client(options: BaselineOptions) -> ProviderClient:
    return ProviderClient(
        options.base_url, options.api_key,
        rate_limiter=RedisRateLimiter(options.redis_url, key_prefix="bench-sync-baseline"),
        rate_limit_key=options.limiter_key, rate_limit=(options.rate_limit, 1),
        timeout=options.timeout, max_retries=options.max_retries,
        backoff_base=options.backoff_base, pool_maxsize=options.threads + 2,
    )


def _fetch_share(options: BaselineOptions, locations: list[int],
                 account_fetches: tuple) -> tuple[int, int]:
    with _client(options) as client, ThreadPoolExecutor(max_workers=options.threads) as pool:
        waiting = [pool.submit(fetch, client, options) for fetch in account_fetches]
        waiting += [pool.submit(_fetch_location, client, remote_id, options)
                    for remote_id in locations]
        for future in waiting:
            future.result()
        return client.stats.requests, client.stats.rate_limited


def _walk(client: ProviderClient, account_number: int, *, threads: int) -> list[int]:
    locations = []
    with ThreadPoolExecutor(max_workers=threads) as pool:
        waiting = {pool.submit(client.child_businesses, account_number)}
        while waiting:
            finished, waiting = wait(waiting, return_when=FIRST_COMPLETED)
            for future in finished:
                for child in future.result():
                    if child.id is None:
                        continue
                    if child.type in (None, LOCATION_TYPE):
                        locations.append(child.id)
                    if child.type != LOCATION_TYPE and (child.child_count is None
                                                        or child.child_count > 0):
                        waiting.add(pool.submit(client.child_businesses, child.id))
    return locations


def _fetch_location(client: ProviderClient, remote_id: int, options: BaselineOptions) -> None:
    client.location_status(remote_id)
    client.get_media(remote_id)
    try:
        for _page in client.iter_qna(remote_id, page_size=options.qna_page_size):
            pass
    except Rejected:
        pass  # as in the sync: Q&A exists only for paid listings of active locations


def _window(options: BaselineOptions) -> tuple[date, date]:
    today = date.today()
    return today - timedelta(days=options.report_lookback_days), today


def _ai_search(client: ProviderClient, options: BaselineOptions) -> None:
    client.ai_search_configuration(options.account_number)


def _review_counts(client: ProviderClient, options: BaselineOptions) -> None:
    start, end = _window(options)
    client.review_count_by_rating(options.account_number, business_numbers=[],
                                  source_aliases=[], from_date=start, to_date=end)


def _competitor_metrics(client: ProviderClient, options: BaselineOptions) -> None:
    start, end = _window(options)
    for _page in client.iter_competitor_review_metrics(options.account_number, from_date=start,
                                                       to_date=end, page_size=100):
        pass


def _competitive_ranking(client: ProviderClient, options: BaselineOptions) -> None:
    start, end = _window(options)
    client.competitive_ranking(options.account_number, start_date=start, end_date=end,
                               review_sites=[])


def _survey_responses(client: ProviderClient, options: BaselineOptions) -> None:
    start, end = _window(options)

    def page(survey_id: int, number: int):
        return client.survey_responses(survey_id, business_number=options.account_number,
                                       start_date=start, end_date=end, page=number,
                                       size=SURVEY_PAGE_SIZE, include_ticket_ids=True)

    # Its own threads, as the sync's step has a worker's: this step is one task of the share.
    with ThreadPoolExecutor(max_workers=options.threads) as pool:
        firsts = {pool.submit(page, survey_id, 0): survey_id for survey_id in options.survey_ids}
        rest = []
        for future, survey_id in firsts.items():
            first = future.result()
            if first.has_next and first.total_responses is not None:
                pages = math.ceil(first.total_responses / SURVEY_PAGE_SIZE)
                rest += [pool.submit(page, survey_id, number) for number in range(1, pages)]
        for future in rest:
            future.result()


ACCOUNT_FETCHES = (_ai_search, _review_counts, _competitor_metrics, _competitive_ranking,
                   _survey_responses)

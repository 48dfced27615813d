"""Syncing a reseller's data from the provider into the mirror.

A run has three kinds of step, each idempotent and each its own Celery task:
- the tree walk: `child/all` from the reseller's account number down every level, the children
  of several containers fetched at once, one bulk upsert per reply, then the businesses it did
  not see are marked removed;
- location chunks: the status report, media and Q&A of a range of locations (or of the
  locations the walk handed out), fetched concurrently and written with a handful of bulk
  queries per chunk;
- account resources: AI-search configuration, review counts, competitor metrics, competitive
  ranking and survey responses.
The walk decides the work and dispatches the other steps; with Celery, it hands out the account
resources before it starts and each chunk of locations as soon as it has mirrored them, so that
the rate limit's allowance is used from the first second. Progress is counted per chunk (so
progress writes do not dominate); whichever step completes the count finishes the run. A
redelivered walk starts a new `attempt`, and steps of an older attempt do nothing, so a run
killed half-way and resumed counts every location once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts import access
from accounts.credentials import CredentialError
from accounts.mirroring import TreeNode, business_children_mirror, business_tree_mark_removed
from accounts.models import Business, Reseller, SyncRun, User
from accounts.provider_access import (
    provider_client,
    provider_error_message,
    provider_key_rejected,
)
from accounts.services import audit_record
from alerts.sources import alerts_after_run
from history.services import history_after_run
from listings.mirroring import (
    ai_search_configuration_mirror,
    questions_mirror,
    status_reports_mirror,
    status_reports_of_removed_businesses_mark_removed,
)
from listings.models import Answer, ListingSite, ListingStatusReport, Question
from media_app.mirroring import media_mirror
from media_app.models import MediaItem
from portal.outbound import UnsafeURL
from provider import (
    AuthError,
    ClientStats,
    ProviderClient,
    ProviderError,
    RateLimited,
    Rejected,
    Transient,
)
from reviews_app.mirroring import (
    competitive_ranking_mirror,
    competitor_metrics_mark_removed,
    competitor_metrics_mirror,
    review_count_mirror,
)
from reviews_app.models import CompetitorMetric, Survey, SurveyResponse
from reviews_app.services import survey_responses_refresh, survey_responses_refresh_many
from sync import tasks

logger = logging.getLogger(__name__)

LOCATION_RESOURCES = ("listing_status", "media", "qna")
ACCOUNT_RESOURCES = ("ai_search", "review_counts", "competitor_metrics", "competitive_ranking",
                     "survey_responses")
RESOURCES = ("businesses", *LOCATION_RESOURCES, *ACCOUNT_RESOURCES)
ACTIVE = (SyncRun.Status.QUEUED, SyncRun.Status.RUNNING)


class SyncAborted(Exception):
    """The run cannot go on (no usable key or base URL, or the provider refused the key)."""


@dataclass
class Dispatcher:
    """How a run's steps are carried out: Celery tasks, or inline for the foreground command."""

    chunk: Callable[..., None]
    account_resource: Callable[..., None]
    # The steps run elsewhere while the walk goes on (Celery workers): the account resources
    # are handed out before the walk and the locations as it finds them. Inline steps (the
    # foreground command) run after the walk, so that its progress only ever grows.
    concurrent: bool = False


# -- starting ----------------------------------------------------------------------------------


def normalize_resources(resources: Iterable[str] | None, *,
                        scope: Business | None = None) -> list[str]:
    """The resources in their order; a run limited to a subtree (`scope`) gets only the
    resources the access policy keeps within a subtree, and everything means all of those."""
    allowed = [r for r in RESOURCES
               if scope is None or access.SYNC_RESOURCE_SCOPE[r] is access.Scope.SUBTREE]
    chosen = list(dict.fromkeys(resources or allowed))
    unknown = [r for r in chosen if r not in RESOURCES]
    if unknown:
        raise ValueError(f"Unknown resource(s): {', '.join(unknown)}. "
                         f"Choose from: {', '.join(RESOURCES)}.")
    account_wide = [r for r in chosen if r not in allowed]
    if account_wide:
        raise ValidationError(
            {"resources": f"{', '.join(account_wide)}: these cover the whole account, and a "
                          f"sync limited to part of it cannot fetch them. "
                          f"Choose from: {', '.join(allowed)}."}, code="account_wide")
    return [r for r in RESOURCES if r in chosen]


def sync_run_create(*, tenant: Reseller, actor: User | None, resources: Iterable[str] | None = None,
                    scope: Business | None = None) -> tuple[SyncRun, bool]:
    """Create a queued run, or return the active run that already covers these resources.

    One run per reseller and resource at a time: the reseller row is locked while checking so
    that two clicks cannot both start one.
    """
    chosen = normalize_resources(resources, scope=scope)
    stale_before = timezone.now() - timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS)
    with transaction.atomic():
        Reseller.objects.select_for_update().filter(pk=tenant.pk).first()
        for active in SyncRun.objects.filter(reseller=tenant, status__in=ACTIVE,
                                             updated_at__gte=stale_before):
            if set(active.resources) & set(chosen):
                return active, False
        run = SyncRun.objects.create(reseller=tenant, resources=chosen, scope=scope,
                                     created_by=actor)
        audit_record(tenant=tenant, actor=actor, action="sync.started", obj=run,
                     summary={"resources": chosen})
    return run, True


# -- the walk and dispatch ---------------------------------------------------------------------


def _client(tenant: Reseller) -> ProviderClient:
    try:
        return provider_client(tenant=tenant, pool_maxsize=settings.SYNC_FETCH_THREADS + 2)
    except (CredentialError, UnsafeURL) as exc:
        raise SyncAborted(str(exc)) from exc


def locations_of(*, tenant: Reseller, run: SyncRun):
    locations = Business.objects.filter(reseller=tenant, type=Business.Type.BUSINESS,
                                        removed_at__isnull=True)
    if run.scope_id is not None:
        locations = locations.filter(run.scope.subtree_q())
    return locations


def sync_walk_and_dispatch(*, tenant: Reseller, run_id: int, dispatcher: Dispatcher) -> None:
    """The first step of a run: walk the tree, count the work, hand out the other steps."""
    run = SyncRun.objects.get(pk=run_id)
    if run.is_finished:
        return
    location_work = [r for r in LOCATION_RESOURCES if r in run.resources]
    account_work = [r for r in ACCOUNT_RESOURCES if r in run.resources]
    early = dispatcher.concurrent
    SyncRun.objects.filter(pk=run.pk).update(
        status=SyncRun.Status.RUNNING, attempt=F("attempt") + 1, done=0, failed=0,
        started_at=run.started_at or timezone.now(),
        # Handing out work as it is found: until the walk is over, it counts as one step of
        # its own, so that the steps already done cannot complete the run.
        total=len(account_work) + 1 if early else 0)
    run.refresh_from_db()
    stream = None
    if early:
        # The account resources do not depend on the tree: they use the allowance while the
        # walk goes on, and the locations go out as soon as a chunk of them is mirrored.
        for resource in account_work:
            dispatcher.account_resource(run_id=run.pk, attempt=run.attempt, resource=resource)
        if location_work and "businesses" in run.resources:
            stream = _LocationStream(run=run, dispatcher=dispatcher,
                                     size=settings.SYNC_CHUNK_SIZE)
    try:
        client = _client(tenant)
        with client:
            try:
                if "businesses" in run.resources:
                    _walk_tree(tenant=tenant, client=client, run=run,
                               found=stream.add if stream is not None else None)
            except BaseException:
                _add_traffic(run, client.stats)
                raise
    except AuthError as exc:
        _abort_for_rejected_key(tenant=tenant, run=run, error=exc)
        return
    except SyncAborted as exc:
        _finish(run, status=SyncRun.Status.FAILED, error=str(exc))
        return
    except ProviderError as exc:
        if exc.retryable:
            raise  # the task tries again later, and fails the run when it gives up
        # Any other answer to the walk is final (an unknown account, a refused request):
        # the run ends with the provider's reason instead of staying "running".
        _finish(run, status=SyncRun.Status.FAILED,
                error=f"The provider refused the business tree: {provider_error_message(exc)}")
        return
    unreserved = stream.finish() if stream is not None else 0

    # The ranges (one small tuple per chunk) come first: the total they add up to must be
    # stored before any step can complete the run.
    chunks = (list(_pk_ranges(locations_of(tenant=tenant, run=run), settings.SYNC_CHUNK_SIZE))
              if location_work and stream is None else [])
    location_total = sum(count for _first, _last, count in chunks)
    if early:
        # The walk's own step is over, and what it handed out is the whole run: every step
        # of it may be done already (a small account), and then this completes the run.
        with connection.cursor() as cursor:
            cursor.execute(_WALK_DONE_SQL, [location_total - 1 - unreserved,
                                            client.stats.requests, client.stats.rate_limited,
                                            run.pk, run.reseller_id, run.attempt])
            counted = cursor.fetchone()
        if counted is None:
            _add_traffic(run, client.stats)  # a newer attempt has begun: only the traffic
        complete = counted is not None and counted[0] + counted[1] >= counted[2]
    else:
        SyncRun.objects.filter(pk=run.pk).update(
            total=location_total + len(account_work),
            requests_made=F("requests_made") + client.stats.requests,
            rate_limited=F("rate_limited") + client.stats.rate_limited)
        if location_total == 0 and not account_work:
            _finish_if_complete(run.pk, run.attempt)
            return
        for resource in account_work:
            dispatcher.account_resource(run_id=run.pk, attempt=run.attempt, resource=resource)
    for first_pk, last_pk, count in chunks:
        dispatcher.chunk(run_id=run.pk, attempt=run.attempt, first_pk=first_pk,
                         last_pk=last_pk, expected=count)
    if early and complete:
        _finish_if_complete(run.pk, run.attempt)


_WALK_DONE_SQL = (
    f"UPDATE {SyncRun._meta.db_table} SET total = total + %s, "  # noqa: S608
    "requests_made = requests_made + %s, rate_limited = rate_limited + %s "
    "WHERE id = %s AND reseller_id = %s AND attempt = %s RETURNING done, failed, total"
)


class _LocationStream:
    """Chunks of the locations the walk has mirrored, handed out as soon as one is full.

    The total of the run must cover every chunk before it is handed out; it is reserved in
    doubling steps (a few statements per run rather than one per chunk), and the walk gives
    back what it did not use when it ends.
    """

    def __init__(self, *, run: SyncRun, dispatcher: Dispatcher, size: int) -> None:
        self._run = run
        self._dispatcher = dispatcher
        self._size = size
        self._found: list[int] = []
        self._handed_out = 0
        self._reserved = 0

    def add(self, remote_ids: list[int]) -> None:
        self._found += remote_ids
        while len(self._found) >= self._size:
            self._hand_out(self._found[:self._size])
            self._found = self._found[self._size:]

    def finish(self) -> int:
        """Hand out the rest; return the reserved total the run does not need."""
        if self._found:
            self._hand_out(self._found)
            self._found = []
        return self._reserved - self._handed_out

    def _hand_out(self, remote_ids: list[int]) -> None:
        run = self._run
        self._handed_out += len(remote_ids)
        if self._handed_out > self._reserved:
            more = max(self._reserved, self._handed_out - self._reserved)
            SyncRun.objects.filter(pk=run.pk).update(total=F("total") + more)
            self._reserved += more
        self._dispatcher.chunk(run_id=run.pk, attempt=run.attempt, remote_ids=remote_ids,
                               expected=len(remote_ids))


def _walk_tree(*, tenant: Reseller, client: ProviderClient, run: SyncRun,
               found: Callable[[list[int]], None] | None = None) -> None:
    """Mirror the tree; `found` is given the remote ids of each reply's locations once they
    are mirrored."""
    walk_started_at = timezone.now()
    root = TreeNode(pk=None, remote_id=tenant.account_number, tree_path="/", depth=-1)
    if run.scope_id is not None:
        scope = run.scope
        root = TreeNode(pk=scope.pk, remote_id=scope.remote_id, tree_path=scope.tree_path,
                        depth=scope.depth)
    walked = 0
    # One reply at a time left most of the allowance unused while the walk decided the work:
    # the next containers of a depth-first walk are asked `ahead` at a time, and each reply is
    # mirrored (on this thread, whose database connection it is) while the next ones travel.
    # The replies are mirrored in the walk's order, so that rows get the same ids whichever
    # comes first, and only the next few are held, however wide the tree.
    ahead = settings.SYNC_FETCH_THREADS if _writes_may_overlap_requests() else 0
    pending: list[list] = [[root, None]]  # [node, its reply when asked]; the last goes next
    with ThreadPoolExecutor(max_workers=max(1, ahead)) as pool:
        try:
            while pending:
                for entry in pending[-ahead:] if ahead else ():
                    if entry[1] is None:
                        entry[1] = pool.submit(client.child_businesses, entry[0].remote_id)
                node, reply = pending.pop()
                children = (reply.result() if reply is not None
                            else client.child_businesses(node.remote_id))
                pending += [[container, None] for container in business_children_mirror(
                    tenant=tenant, parent=node, children=children, seen_at=timezone.now())]
                walked += len(children)
                if found is not None:
                    # As the mirror types them: a child without a type is a location.
                    found([child.id for child in children if child.id is not None
                           and (child.type or Business.Type.BUSINESS) == Business.Type.BUSINESS])
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    # Only a complete walk of the whole tree may conclude that unseen businesses are gone.
    if run.scope_id is None:
        removed = business_tree_mark_removed(tenant=tenant, walk_started_at=walk_started_at)
        if removed:
            status_reports_of_removed_businesses_mark_removed(tenant=tenant,
                                                              removed_at=walk_started_at)
        logger.info("sync %s: walked %d businesses, %d removed", run.pk, walked, removed)


def _writes_may_overlap_requests() -> bool:
    """Whether this thread may write while provider requests are in flight. Not with an
    in-memory SQLite database: it is one connection, shared by every thread of the process (the
    embedded sandbox answering those requests included), which cannot commit for one thread
    while a statement of another is running."""
    return not (connection.vendor == "sqlite" and connection.is_in_memory_db())


def _pk_ranges(queryset, size: int):
    """Consecutive (first, last, count) primary-key ranges of `size` rows, without loading
    them all."""
    first = last = None
    taken = 0
    for pk in queryset.order_by("pk").values_list("pk", flat=True).iterator(chunk_size=2000):
        if first is None:
            first = pk
        last, taken = pk, taken + 1
        if taken == size:
            yield first, last, taken
            first, taken = None, 0
    if first is not None:
        yield first, last, taken


# -- location chunks ---------------------------------------------------------------------------


@dataclass
class LocationFetch:
    business: Business
    status: object = None
    media: list = field(default_factory=list)
    questions: list = field(default_factory=list)
    error: str = ""
    fatal: Exception | None = None


def _fetch_location(client: ProviderClient, business: Business,
                    resources: list[str]) -> LocationFetch:
    fetched = LocationFetch(business=business)
    try:
        if "listing_status" in resources:
            fetched.status = client.location_status(business.remote_id)
        if "media" in resources:
            fetched.media = client.get_media(business.remote_id)
        if "qna" in resources:
            try:
                for page in client.iter_qna(business.remote_id,
                                            page_size=settings.SYNC_QNA_PAGE_SIZE):
                    fetched.questions.extend(page.questions)
            except Rejected:
                # Q&A exists only for paid listings of active locations; others have none.
                fetched.questions = []
    except (AuthError, RateLimited, Transient) as exc:
        # Retrying the whole chunk later beats recording a location as failed for a hiccup.
        fetched.fatal = exc
    except ProviderError as exc:
        fetched.error = f"{business.remote_id}: {exc}"
    return fetched


def sync_location_chunk(*, tenant: Reseller, run_id: int, attempt: int, expected: int,
                        first_pk: int | None = None, last_pk: int | None = None,
                        remote_ids: list[int] | None = None) -> None:
    """Fetch and mirror a chunk of locations: a range of primary keys, or the locations the
    walk handed out by their remote ids."""
    run = SyncRun.objects.select_related("scope").get(pk=run_id)
    if run.attempt != attempt or run.is_finished:
        return
    chosen = (Q(remote_id__in=remote_ids) if remote_ids is not None
              else Q(pk__gte=first_pk, pk__lte=last_pk))
    locations = list(locations_of(tenant=tenant, run=run).filter(chosen)
                     # removed_at: the status report mirror copies it (a query per
                     # location if it were deferred).
                     .only("pk", "remote_id", "reseller_id", "removed_at"))
    resources = [r for r in LOCATION_RESOURCES if r in run.resources]
    try:
        client = _client(tenant)
    except SyncAborted as exc:
        _finish(run, status=SyncRun.Status.FAILED, error=str(exc))
        return
    with client:
        try:
            with ThreadPoolExecutor(max_workers=settings.SYNC_FETCH_THREADS) as pool:
                results = list(pool.map(lambda b: _fetch_location(client, b, resources),
                                        locations))
        except BaseException:
            _add_traffic(run, client.stats)
            raise
    fatal = [r.fatal for r in results if r.fatal is not None]
    if fatal:
        _add_traffic(run, client.stats)
        rejected = [exc for exc in fatal if isinstance(exc, AuthError)]
        if rejected:
            _abort_for_rejected_key(tenant=tenant, run=run, error=rejected[0])
            return
        raise fatal[0]  # RateLimited or Transient: the chunk is retried later
    ok = [r for r in results if not r.error]
    seen_at = timezone.now()
    with transaction.atomic():
        if "listing_status" in resources:
            status_reports_mirror(tenant=tenant, reports=[(r.business, r.status) for r in ok],
                                  seen_at=seen_at)
        if "media" in resources:
            media_mirror(tenant=tenant, lists=[(r.business, r.media) for r in ok],
                         seen_at=seen_at)
        if "qna" in resources:
            questions_mirror(tenant=tenant, pages=[(r.business, r.questions) for r in ok],
                             seen_at=seen_at)
    errors = [r.error for r in results if r.error]
    # Locations removed between the walk and this chunk count as done: nothing is left to fetch.
    _progress(run, attempt=attempt, done=expected - len(errors), errors=errors,
              traffic=client.stats)


# -- account resources -------------------------------------------------------------------------


def sync_account_resource(*, tenant: Reseller, run_id: int, attempt: int, resource: str) -> None:
    run = SyncRun.objects.select_related("scope").get(pk=run_id)
    if run.attempt != attempt or run.is_finished:
        return
    try:
        client = _client(tenant)
    except SyncAborted as exc:
        _finish(run, status=SyncRun.Status.FAILED, error=str(exc))
        return
    with client:
        try:
            # A run limited to a subtree asks about its root (only subtree resources get here).
            root = run.scope.remote_id if run.scope_id is not None else tenant.account_number
            ACCOUNT_SYNCS[resource](tenant=tenant, client=client, business_number=root)
        except (AuthError, RateLimited, Transient) as exc:
            _add_traffic(run, client.stats)
            if isinstance(exc, AuthError):
                _abort_for_rejected_key(tenant=tenant, run=run, error=exc)
                return
            raise
        except ProviderError as exc:
            _progress(run, attempt=attempt, done=0, errors=[f"{resource}: {exc}"],
                      traffic=client.stats)
            return
        except BaseException:
            _add_traffic(run, client.stats)
            raise
    _progress(run, attempt=attempt, done=1, errors=[], traffic=client.stats)


def _report_window() -> tuple:
    today = timezone.localdate()
    return today - timedelta(days=settings.SYNC_REPORT_LOOKBACK_DAYS), today


def _sync_ai_search(*, tenant: Reseller, client: ProviderClient,
                    business_number: int) -> None:
    ai_search_configuration_mirror(
        tenant=tenant, configuration=client.ai_search_configuration(business_number),
        seen_at=timezone.now())


def _sync_review_counts(*, tenant: Reseller, client: ProviderClient,
                        business_number: int) -> None:
    start, end = _report_window()
    counts = client.review_count_by_rating(business_number, business_numbers=[],
                                           source_aliases=[], from_date=start, to_date=end)
    review_count_mirror(tenant=tenant, remote_id=business_number, counts=counts,
                        seen_at=timezone.now())


def _sync_competitor_metrics(*, tenant: Reseller, client: ProviderClient,
                             business_number: int) -> None:
    start, end = _report_window()
    started_at = timezone.now()
    pages = client.iter_competitor_review_metrics(business_number, from_date=start,
                                                  to_date=end, page_size=100)
    for page in pages:
        competitor_metrics_mirror(tenant=tenant, page=page, seen_at=timezone.now())
    if not pages.truncated:
        competitor_metrics_mark_removed(tenant=tenant, started_at=started_at)


def _sync_competitive_ranking(*, tenant: Reseller, client: ProviderClient,
                              business_number: int) -> None:
    start, end = _report_window()
    ranking = client.competitive_ranking(business_number, start_date=start, end_date=end,
                                         review_sites=[])
    competitive_ranking_mirror(tenant=tenant, ranking=ranking, seen_at=timezone.now())


def _sync_survey_responses(*, tenant: Reseller, client: ProviderClient,
                           business_number: int) -> None:
    start, end = _report_window()
    surveys = list(Survey.objects.filter(reseller=tenant))
    if not _writes_may_overlap_requests():
        for survey in surveys:
            survey_responses_refresh(tenant=tenant, client=client, survey=survey,
                                     business_number=business_number, start=start, end=end)
        return
    survey_responses_refresh_many(tenant=tenant, client=client, surveys=surveys,
                                  business_number=business_number, start=start, end=end,
                                  threads=settings.SYNC_FETCH_THREADS)


ACCOUNT_SYNCS = {
    "ai_search": _sync_ai_search,
    "review_counts": _sync_review_counts,
    "competitor_metrics": _sync_competitor_metrics,
    "competitive_ranking": _sync_competitive_ranking,
    "survey_responses": _sync_survey_responses,
}


# -- progress and the end of a run -------------------------------------------------------------


def _add_traffic(run: SyncRun, stats: ClientStats) -> None:
    if stats.requests or stats.rate_limited:
        SyncRun.objects.filter(pk=run.pk).update(
            requests_made=F("requests_made") + stats.requests,
            rate_limited=F("rate_limited") + stats.rate_limited)


_COUNT_STEP_SQL = (
    f"UPDATE {SyncRun._meta.db_table} SET done = done + %s, failed = failed + %s, "  # noqa: S608
    "requests_made = requests_made + %s, rate_limited = rate_limited + %s "
    "WHERE id = %s AND reseller_id = %s AND attempt = %s RETURNING done, failed, total"
)


def _progress(run: SyncRun, *, attempt: int, done: int, errors: list[str],
              traffic: ClientStats | None = None) -> None:
    requests, rate_limited = (traffic.requests, traffic.rate_limited) if traffic else (0, 0)
    # One statement per step adds its counts and its traffic and says whether the run is now
    # complete, instead of one write each and a completion check after every step.
    with connection.cursor() as cursor:
        cursor.execute(_COUNT_STEP_SQL, [done, len(errors), requests, rate_limited, run.pk,
                                         run.reseller_id, attempt])
        counted = cursor.fetchone()
    if counted is None:
        if traffic is not None:
            _add_traffic(run, traffic)  # a step of an older attempt still spent its requests
        return
    if errors:
        with transaction.atomic():
            locked = SyncRun.objects.select_for_update().get(pk=run.pk)
            room = SyncRun.MAX_ERRORS_KEPT - len(locked.errors)
            if room > 0:
                locked.errors = [*locked.errors, *errors[:room]]
                locked.save(update_fields=["errors", "updated_at"])
    done_so_far, failed_so_far, total = counted
    if done_so_far + failed_so_far >= total:
        _finish_if_complete(run.pk, attempt)


def _finish_if_complete(run_id: int, attempt: int) -> None:
    claimed = SyncRun.objects.filter(
        pk=run_id, attempt=attempt, status=SyncRun.Status.RUNNING,
        total__lte=F("done") + F("failed"),
    ).update(status=SyncRun.Status.SUCCEEDED, finished_at=timezone.now())
    if claimed:
        run = SyncRun.objects.select_related("scope").get(pk=run_id)
        run.counts = mirror_counts(run.reseller, scope=run.scope)
        run.status = SyncRun.Status.PARTIAL if run.failed else SyncRun.Status.SUCCEEDED
        run.save(update_fields=["counts", "status", "updated_at"])
        history_after_run(tenant=run.reseller)
        alerts_after_run(tenant=run.reseller, run_id=run.pk)


def _finish(run: SyncRun, *, status: str, error: str = "") -> None:
    updates = {"status": status, "finished_at": timezone.now()}
    if error:
        updates["errors"] = [*run.errors, error][: SyncRun.MAX_ERRORS_KEPT]
    SyncRun.objects.filter(pk=run.pk).exclude(status__in=SyncRun.FINISHED).update(**updates)
    alerts_after_run(tenant=run.reseller, run_id=run.pk)


def _abort_for_rejected_key(*, tenant: Reseller, run: SyncRun, error: AuthError) -> None:
    """The provider refused the key: flag the reseller and stop, touching nothing else."""
    flagged = provider_key_rejected(tenant=tenant, code=error.code)
    _finish(run, status=SyncRun.Status.FAILED,
            error=f"The provider rejected the API key (code {error.code}). "
                  "An owner must enter a new key in Settings.")
    # Steps running side by side meet the refusal together: it is recorded once.
    if flagged:
        audit_record(tenant=tenant, actor=None, action="reseller.api_key_rejected",
                     obj=tenant, summary={"code": error.code, "run": run.pk})


def mirror_counts(tenant: Reseller, scope: Business | None = None) -> dict[str, int]:
    """What the mirror holds after a run: of the whole account, or of the run's subtree only
    (a run limited to a subtree reports nothing about the rest of the account)."""

    live = {"reseller": tenant, "removed_at__isnull": True}

    def within(prefix: str) -> Q:
        return scope.subtree_q(prefix) if scope is not None else Q()

    businesses = Business.objects.filter(within(""), **live)
    counts = {
        "businesses": businesses.count(),
        "locations": businesses.filter(type=Business.Type.BUSINESS).count(),
        "status_reports": ListingStatusReport.objects.filter(within("business__"), **live).count(),
        "listing_sites": ListingSite.objects.filter(within("business__"), **live).count(),
        "media": MediaItem.objects.filter(within("business__"), **live).count(),
        "questions": Question.objects.filter(within("business__"), **live).count(),
        "answers": Answer.objects.filter(within("question__business__"), **live).count(),
    }
    if scope is None:
        counts["competitor_metrics"] = CompetitorMetric.objects.filter(**live).count()
        counts["survey_responses"] = SurveyResponse.objects.filter(**live).count()
    return counts


def sync_start(*, tenant: Reseller, actor: User | None, resources: Iterable[str] | None = None,
               scope: Business | None = None) -> tuple[SyncRun, bool]:
    """Create a run (or find the active one) and queue it once the transaction commits."""
    run, created = sync_run_create(tenant=tenant, actor=actor, resources=resources, scope=scope)
    if created:
        transaction.on_commit(lambda: _queue_run(tenant, run))
    return run, created


def _queue_run(tenant: Reseller, run: SyncRun) -> None:

    try:
        tasks.sync_run_task.delay(reseller_id=tenant.pk, run_id=run.pk)
    except Exception:  # noqa: BLE001 - the broker is down
        # Failing the run says so on its page, and a queued run nobody will start would block
        # the next one until it goes stale.
        logger.warning("sync %s: could not queue its first step", run.pk, exc_info=True)
        _finish(run, status=SyncRun.Status.FAILED,
                error="The task queue is unavailable; start the sync again later.")

"""Syncing a reseller's data from the provider into the mirror.

A run has three kinds of step, each idempotent and each its own Celery task:
- the tree walk: `child/all` from the reseller's account number down every level, the children
  of several containers fetched at once, one bulk upsert per reply, then the businesses it did
  not see are marked removed;
- location chunks: the status report, media and Q&A of a range of locations (or of the
  locations the walk handed out), fetched concurrently and written with a handful of bulk
  queries per chunk;
- account resources: survey responses, AI-search configuration, review counts, competitor
  metrics and competitive ranking, in one step.
The walk decides the work and dispatches the other steps; with Celery, it hands out the account
resources before it starts and each chunk of locations as soon as it has mirrored them (the
first one sooner, smaller), so that the rate limit's allowance is used from the first second.
While the allowance goes unused (the start, the end of a run), a chunk fetches with more
threads; and the last chunks write most of what they have before their last requests, so that
it is used to the last second too (`_fetch_chunk`). Progress is counted per step (so progress writes
do not dominate); whichever step completes the count finishes the run. A redelivered walk
starts a new `attempt`, and steps of an older attempt do nothing, so a run killed half-way and
resumed counts every location once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Case, Count, Exists, F, Q, Subquery, Value, When
from django.db.models.functions import Coalesce, JSONObject
from django.utils import timezone

from accounts import access
from accounts.credentials import CredentialError
from accounts.mirroring import TreeNode, business_children_mirror, business_tree_mark_removed
from accounts.models import Business, Reseller, SyncRun, User
from accounts.provider_access import (
    provider_client,
    provider_error_message,
    provider_key_rejected,
    rate_limit_key,
    shared_pacer,
    shared_rate_limiter,
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
from portal.durable import with_reconnect
from portal.outbound import UnsafeURL
from portal.tenancy import tenant_scope
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
from sync.models import SyncStep
from sync.steps import NO_HEARTBEAT, Heartbeat, StepClaim, StepTaken, run_alive_since

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
    that two clicks cannot both start one. A run that stopped progressing (no count, no sign of
    life of any of its steps for SYNC_STALE_AFTER_SECONDS) is ended here, in the same
    transaction, so that two runs over one resource never run at once.
    """
    chosen = normalize_resources(resources, scope=scope)
    stale_before = timezone.now() - timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS)
    with transaction.atomic():
        Reseller.objects.select_for_update().filter(pk=tenant.pk).first()
        for active in SyncRun.objects.filter(reseller=tenant, status__in=ACTIVE).annotate(
                alive=Q(updated_at__gte=stale_before) | run_alive_since(stale_before)):
            if not set(active.resources) & set(chosen):
                continue
            if active.alive:
                return active, False
            _end_stalled(active)
        run = SyncRun.objects.create(reseller=tenant, resources=chosen, scope=scope,
                                     created_by=actor)
        audit_record(tenant=tenant, actor=actor, action="sync.started", obj=run,
                     summary={"resources": chosen})
    return run, True


# -- the walk and dispatch ---------------------------------------------------------------------


def _client(tenant: Reseller) -> ProviderClient:
    try:
        # As many connections as a chunk's threads at their most, so that none is discarded.
        return provider_client(tenant=tenant,
                               pool_maxsize=settings.SYNC_FETCH_THREADS * WIDEST + 2)
    except (CredentialError, UnsafeURL) as exc:
        raise SyncAborted(str(exc)) from exc


def locations_of(*, tenant: Reseller, run: SyncRun):
    locations = Business.objects.filter(reseller=tenant, type=Business.Type.BUSINESS,
                                        removed_at__isnull=True)
    if run.scope_id is not None:
        locations = locations.filter(run.scope.subtree_q())
    return locations


def sync_walk_and_dispatch(*, tenant: Reseller, run_id: int, dispatcher: Dispatcher,
                           run: SyncRun | None = None, claim: StepClaim | None = None) -> None:
    """The first step of a run: walk the tree, count the work, hand out the other steps.

    `run` is the run already read with its reseller (the task's first statement), or None;
    `claim` the worker's claim on the walk's step (its heartbeat). A walk taken up again after
    its worker died starts the run's next attempt: the steps of the one before do nothing."""
    run = run if run is not None else SyncRun.objects.get(pk=run_id)
    if run.is_finished:
        return
    location_work = [r for r in LOCATION_RESOURCES if r in run.resources]
    account_work = [r for r in ACCOUNT_RESOURCES if r in run.resources]
    early = dispatcher.concurrent
    streamed = early and bool(location_work) and "businesses" in run.resources
    # Handing out work as it is found: until the walk is over, it counts as one step of its
    # own, so that the steps already done cannot complete the run; the first chunks' share of
    # the total is reserved here rather than by statements of their own.
    reserved = RESERVED_AT_START * settings.SYNC_CHUNK_SIZE if streamed else 0
    run.attempt = _run_started(run, total=len(account_work) + 1 + reserved if early else 0)
    _chunk_counts_clear(run)
    stream = None
    if early:
        # The account resources do not depend on the tree: they use the allowance while the
        # walk goes on, and the locations go out as soon as a chunk of them is mirrored.
        for resources in _account_steps(account_work):
            dispatcher.account_resource(run_id=run.pk, attempt=run.attempt,
                                        resources=resources)
        if streamed:
            stream = _LocationStream(run=run, dispatcher=dispatcher,
                                     size=settings.SYNC_CHUNK_SIZE, reserved=reserved)
    heartbeat = claim.heartbeat() if claim is not None else NO_HEARTBEAT
    try:
        client = _client(tenant)
        with client:
            try:
                if "businesses" in run.resources:
                    _walk_tree(tenant=tenant, client=client, run=run,
                               found=stream.add if stream is not None else None,
                               heartbeat=heartbeat)
            except StepTaken:
                logger.info("sync %s: the walk was taken up by another worker", run.pk)
                return
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
    if stream is not None:
        chunks_handed_out(run, stream.chunks)

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
                                            _now_param(), run.pk, run.reseller_id,
                                            run.attempt])
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
            _finish_if_complete(run, run.attempt)
            return
        for resources in _account_steps(account_work):
            dispatcher.account_resource(run_id=run.pk, attempt=run.attempt,
                                        resources=resources)
    if chunks and early:
        chunks_handed_out(run, len(chunks))
    for first_pk, last_pk, count in chunks:
        dispatcher.chunk(run_id=run.pk, attempt=run.attempt, first_pk=first_pk,
                         last_pk=last_pk, expected=count)
    if claim is not None:
        claim.done()
    if early and complete:
        _finish_if_complete(run, run.attempt)


_START_SQL = (
    f"UPDATE {SyncRun._meta.db_table} SET status = %s, attempt = attempt + 1, "  # noqa: S608
    "done = 0, failed = 0, total = %s, started_at = COALESCE(started_at, %s), updated_at = %s "
    "WHERE id = %s AND reseller_id = %s RETURNING attempt"
)


def _run_started(run: SyncRun, *, total: int) -> int:
    """Mark the run running under a new attempt and return that attempt: one statement, and
    the attempt is this delivery's own even when another delivery of the walk starts too."""
    started_at = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(_START_SQL, [SyncRun.Status.RUNNING, total, started_at, started_at,
                                    run.pk, run.reseller_id])
        (attempt,) = cursor.fetchone()
    run.status = SyncRun.Status.RUNNING
    return attempt


_WALK_DONE_SQL = (
    f"UPDATE {SyncRun._meta.db_table} SET total = total + %s, "  # noqa: S608
    "requests_made = requests_made + %s, rate_limited = rate_limited + %s, updated_at = %s "
    "WHERE id = %s AND reseller_id = %s AND attempt = %s RETURNING done, failed, total"
)


def _now_param():
    """Now, as a statement's parameter (the progress statements are written by hand)."""
    return connection.ops.adapt_datetimefield_value(timezone.now())


# The first chunk goes out as soon as the walk has found this share of a chunk.
FIRST_CHUNK_SHARE = 8
# Chunks of locations whose share of the total a run reserves when it starts: until its walk
# ends, the run's total is that much too high (a few seconds for most accounts).
RESERVED_AT_START = 4


class _LocationStream:
    """Chunks of the locations the walk has mirrored, handed out as soon as one is full.

    The total of the run must cover every chunk before it is handed out; it is reserved in
    doubling steps (a few statements per run rather than one per chunk), and the walk gives
    back what it did not use when it ends.
    """

    def __init__(self, *, run: SyncRun, dispatcher: Dispatcher, size: int,
                 reserved: int = 0) -> None:
        self._run = run
        self._dispatcher = dispatcher
        self._size = size
        self._found: list[int] = []
        self._handed_out = 0
        self._reserved = reserved  # already in the run's total when the walk began
        self._resources = [r for r in LOCATION_RESOURCES if r in run.resources]
        self.chunks = 0

    def add(self, remote_ids: list[int]) -> None:
        self._found += remote_ids
        if not self.chunks and len(self._found) >= -(-self._size // FIRST_CHUNK_SHARE):
            # The first locations found go out at once, however few (a share of a chunk at
            # least): until they do, the allowance goes unused but for the walk's requests.
            self._hand_out(self._found[:self._size])
            self._found = self._found[self._size:]
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
        self.chunks += 1
        # The resources go with the chunk, so that its step need not read them from the run.
        self._dispatcher.chunk(run_id=run.pk, attempt=run.attempt, remote_ids=remote_ids,
                               expected=len(remote_ids), resources=self._resources)


def _walk_tree(*, tenant: Reseller, client: ProviderClient, run: SyncRun,
               found: Callable[[list[int]], None] | None = None,
               heartbeat: Heartbeat = NO_HEARTBEAT) -> None:
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
                if ahead:
                    heartbeat.beat()  # (this thread writes while requests are in flight)
                pending += [[container, None] for container in with_reconnect(
                    lambda node=node, children=children: business_children_mirror(
                        tenant=tenant, parent=node, children=children,
                        seen_at=timezone.now()),
                    what=f"sync {run.pk}")]
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


def location_chunk_read(*, reseller_id: int, run_id: int, attempt: int,
                        remote_ids: list[int] | None = None,
                        resources: list[str] | None = None,
                        ) -> tuple[SyncRun, list[Business] | None]:
    """The first read of a chunk's step: its run (with the reseller it runs for) and, when it
    can, its locations.

    A chunk the walk handed out by remote ids, with its resources, needs nothing else of the
    run than to know it is still at this attempt: one statement reads its locations with their
    reseller, on that condition. Otherwise (a range of primary keys, a message of an older
    version, no location read: an older attempt's step, or locations removed since the walk)
    the run is read as every other step reads it, and its locations come after (None)."""
    if remote_ids is not None and resources is not None:
        current = SyncRun.unscoped.filter(pk=run_id, reseller_id=reseller_id, attempt=attempt,
                                          status=SyncRun.Status.RUNNING)
        locations = list(
            Business.unscoped.select_related("reseller")
            .filter(reseller_id=reseller_id, type=Business.Type.BUSINESS,
                    removed_at__isnull=True, remote_id__in=remote_ids)
            .filter(Exists(current))
            .annotate(run_scope_id=Subquery(current.values("scope_id")[:1]))
            # removed_at: the status report mirror copies it (a query per location if it
            # were deferred).
            .only("pk", "remote_id", "reseller", "removed_at"))
        if locations:
            # The run as far as the step knows it; its other fields are deferred, read if
            # the step comes to need them.
            known = {"id": run_id, "reseller_id": reseller_id, "attempt": attempt,
                     "status": SyncRun.Status.RUNNING, "resources": list(resources),
                     "scope_id": locations[0].run_scope_id}
            fields = [f.attname for f in SyncRun._meta.concrete_fields if f.attname in known]
            run = SyncRun.from_db(connection.alias, fields, [known[f] for f in fields])
            run.reseller = locations[0].reseller
            return run, locations
    run = SyncRun.unscoped.select_related("reseller", "scope").get(pk=run_id,
                                                                   reseller_id=reseller_id)
    return run, None


def sync_location_chunk(*, tenant: Reseller, run_id: int, attempt: int, expected: int,
                        first_pk: int | None = None, last_pk: int | None = None,
                        remote_ids: list[int] | None = None,
                        resources: list[str] | None = None, run: SyncRun | None = None,
                        locations: list[Business] | None = None,
                        claim: StepClaim | None = None) -> None:
    """Fetch and mirror a chunk of locations: a range of primary keys, or the locations the
    walk handed out by their remote ids (`resources`: the run's, handed out with them).

    `run` and `locations`: what the step's first read gave (`location_chunk_read`); `claim`:
    the worker's claim on the step (its heartbeat, and its count done once). What was fetched
    is kept through a lost database connection: the writes are repeated, not the requests."""
    if locations is None:
        run = run if run is not None else SyncRun.objects.select_related("scope").get(pk=run_id)
        if run.attempt != attempt or run.is_finished:
            return
        chosen = (Q(remote_id__in=remote_ids) if remote_ids is not None
                  else Q(pk__gte=first_pk, pk__lte=last_pk))
        locations = list(locations_of(tenant=tenant, run=run).filter(chosen)
                         .only("pk", "remote_id", "reseller_id", "removed_at"))
    resources = [r for r in LOCATION_RESOURCES if r in run.resources]
    try:
        client = _client(tenant)
    except SyncAborted as exc:
        _finish(run, status=SyncRun.Status.FAILED, error=str(exc))
        return
    heartbeat = claim.heartbeat() if claim is not None else NO_HEARTBEAT
    with client:
        try:
            results, written = _fetch_chunk(tenant=tenant, client=client, run=run,
                                            locations=locations, resources=resources,
                                            heartbeat=heartbeat)
        except StepTaken:
            logger.info("sync %s: a chunk was taken up by another worker", run.pk)
            return
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
    with_reconnect(lambda: _mirror_locations(tenant=tenant, fetched=results,
                                             resources=resources, ahead=written),
                   what=f"sync {run.pk}")
    errors = [r.error for r in results if r.error]
    # Locations removed between the walk and this chunk count as done: nothing is left to fetch.
    _progress(run, attempt=attempt, done=expected - len(errors), errors=errors,
              traffic=client.stats, claim=claim)


def _mirror_locations(*, tenant: Reseller, fetched: list[LocationFetch],
                      resources: list[str], ahead: int = 0) -> None:
    """Write what was fetched of some locations, in one transaction (those with an error
    keep their rows as they were). The first `ahead` have their status reports written
    already."""
    ok = [r for r in fetched if not r.error]
    seen_at = timezone.now()
    with transaction.atomic():
        if "listing_status" in resources:
            status_reports_mirror(tenant=tenant, reports=[(r.business, r.status)
                                                          for r in fetched[ahead:]
                                                          if not r.error],
                                  seen_at=seen_at)
        if "media" in resources:
            media_mirror(tenant=tenant, lists=[(r.business, r.media) for r in ok],
                         seen_at=seen_at)
        if "qna" in resources:
            questions_mirror(tenant=tenant, pages=[(r.business, r.questions) for r in ok],
                             seen_at=seen_at)


def _fetch_chunk(*, tenant: Reseller, client: ProviderClient, run: SyncRun,
                 locations: list[Business], resources: list[str],
                 heartbeat: Heartbeat = NO_HEARTBEAT) -> tuple[list[LocationFetch], int]:
    """Fetch every location of a chunk, in order (with SYNC_FETCH_THREADS threads, more while
    the allowance goes unused: `_FetchThreads`); return what was fetched and how many of its
    first locations have their status reports written already.

    Writing a chunk takes a while, and whatever is left to write after the run's last
    request is time the allowance goes unused. A chunk that ends while others are waiting
    for a worker is written when it ends, as the requests of the others go on. But the last
    chunks of a run (every chunk has started) write the status reports of their first
    locations (with their sites, most of the writing) while their last ones are fetched (on
    this thread, whose database connection it is), so that little is left to write after
    the last request: one more write, for the last few chunks of a run.
    """
    limiter = shared_pacer() if tenant.rate_limit_auto else shared_rate_limiter()
    limit_key = rate_limit_key(tenant)
    threads = _FetchThreads(key=chunk_counts_key(run), threads=settings.SYNC_FETCH_THREADS,
                            last_wait=lambda: limiter.last_wait(limit_key))
    # Written ahead once no more than this many are still to be fetched (not counting those
    # already fetched out of order), and their fetch outlasts the write of the others.
    tail = -(-len(locations) // CHUNK_TAIL_SHARE)
    overlap = _writes_may_overlap_requests()
    watching = (0 < tail < len(locations) and overlap and "listing_status" in resources)
    pending = [Future() for _ in locations]
    order = iter(list(enumerate(locations)))
    taking, stopped = threading.Lock(), threading.Event()
    fetched = [0]  # how many are fetched, in any order

    def fetch_in_order() -> None:
        # A thread takes the next location only once it may fetch, so that the locations
        # are fetched in their order however many threads the chunk has at the moment.
        while not stopped.is_set():
            with threads.slot():
                with taking:
                    index, business = (None, None) if stopped.is_set() else next(
                        order, (None, None))
                if index is None:
                    return
                try:
                    pending[index].set_result(_fetch_location(client, business, resources))
                except BaseException as exc:
                    pending[index].set_exception(exc)
                    raise
                finally:
                    with taking:
                        fetched[0] += 1

    threads.start()
    with ThreadPoolExecutor(max_workers=threads.most) as pool:
        try:
            for _ in range(min(threads.most, len(locations))):
                pool.submit(fetch_in_order)
            results: list[LocationFetch] = []
            written = 0
            for future in pending:
                done = False
                while not done:
                    try:
                        results.append(future.result(timeout=RECOUNT_SECONDS))
                        done = True
                    except TimeoutError:
                        pass
                    threads.resize()
                    if overlap:
                        heartbeat.beat()  # on this thread, whose connection it is
                    if (watching and len(locations) - fetched[0] <= tail
                            and threads.all_started()):
                        # With many fetches in flight, the first locations are written as
                        # far as they are all fetched; the later ones are for the end.
                        watching = False
                        if all(r.fatal is None for r in results):
                            ahead = list(results)
                            with_reconnect(lambda ahead=ahead: _mirror_locations(
                                tenant=tenant, fetched=ahead, resources=["listing_status"]),
                                what=f"sync {run.pk}")
                            written = len(ahead)
            return results, written
        finally:
            # Done, or out with an error: the threads still waiting for their turn take none.
            stopped.set()
            threads.wake_all()


# The last part of a chunk still to fetch when it writes the rest ahead (its last chunks
# only): its fetch outlasts the write of the rest, which so does not hold up the last write.
CHUNK_TAIL_SHARE = 4


class _FetchThreads:
    """How many of a chunk's locations are fetched at once: SYNC_FETCH_THREADS while the
    requests of the chunk's process wait for their slot (the allowance is used up), more while
    they do not, at the start of a run (the walk has found few locations yet) and at its end
    (the last chunks are still fetching, and the workers done with theirs have nothing left
    to take): with a few threads each, the last chunk alone left the allowance unused for
    seconds. More threads only while the allowance goes unused, back to the usual as soon as
    requests wait again: the requests in flight are what the allowance takes.
    """

    def __init__(self, *, key: str, threads: int,
                 last_wait: Callable[[], float | None]) -> None:
        self._started_key, self._handed_out_key = f"{key}:started", f"{key}:handed-out"
        self._threads = threads
        self._last_wait = last_wait
        self.most = threads * WIDEST
        self._permits = threading.Semaphore(threads)
        self._granted = threads  # permits in play: in use or free
        self._owed = 0  # permits to keep as fetches end, after narrowing
        self._lock = threading.Lock()
        self._checked_at = 0.0

    def start(self) -> None:
        _cache_add(self._started_key, 1)

    def all_started(self) -> bool:
        """Whether every chunk of the run has started: the walk has handed them all out, and
        none is left waiting for a worker."""
        waiting = self._chunks_waiting()
        return waiting is not None and waiting <= 0

    def _chunks_waiting(self) -> int | None:
        """Chunks not started yet, or None while the walk is still handing them out."""
        counts = cache.get_many([self._started_key, self._handed_out_key])
        handed_out = counts.get(self._handed_out_key)
        return None if handed_out is None else handed_out - (counts.get(self._started_key) or 0)

    def wake_all(self) -> None:
        for _ in range(self.most):
            self._permits.release()

    @contextmanager
    def slot(self) -> Iterator[None]:
        self._permits.acquire()
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        with self._lock:
            if self._owed:
                self._owed -= 1
                self._granted -= 1
                return
        self._permits.release()

    def resize(self) -> None:
        """More threads while the allowance goes unused, fewer once it is used up again (the
        chunk's own thread calls this every RECOUNT_SECONDS)."""
        now = time.monotonic()
        if now - self._checked_at < RECOUNT_SECONDS:
            return
        self._checked_at = now
        waited = self._last_wait()
        unused = waited is None or now - waited > UNUSED_AFTER_SECONDS
        if unused:
            # Not between two rounds of chunks (the walk over, chunks still waiting for a
            # worker): a gap there is a worker between two chunks, soon filled, and chunks
            # widened then would end their round together and leave nobody fetching while
            # they all write.
            waiting = self._chunks_waiting()
            unused = waiting is None or waiting <= 0
        with self._lock:
            self._resize(unused)

    def _resize(self, unused: bool) -> None:
        in_play = self._granted - self._owed
        if unused:
            wanted = min(self.most, in_play + self._threads)
        else:
            wanted = max(self._threads, in_play - 1)  # used up: back, one at a time
        wider = wanted - in_play
        if wider > 0:
            taken_back = min(wider, self._owed)
            self._owed -= taken_back
            for _ in range(wider - taken_back):
                self._permits.release()
            self._granted += wider - taken_back
        else:
            self._owed -= wider  # narrower: keep that many permits as fetches end


def _chunk_counts_clear(run: SyncRun) -> None:
    """Start this attempt's counts afresh (what a cache keeps of an earlier run with the same
    number, as in a test database, would be taken for them)."""
    cache.delete_many([f"{chunk_counts_key(run)}:{name}" for name in COUNTS])


def chunks_handed_out(run: SyncRun, count: int) -> None:
    """Note how many chunks the run has, once the walk has handed them all out to workers,
    so that a chunk can tell when every one has started (`_FetchThreads.all_started`)."""
    cache.set(f"{chunk_counts_key(run)}:handed-out", count, COUNT_SECONDS)


def chunk_counts_key(run: SyncRun) -> str:
    """Where the cache keeps the counts of the chunks of a run's attempt."""
    return f"sync-run:{run.pk}:{run.attempt}"


def _cache_add(key: str, delta: int) -> int:
    """Add to a count in the shared cache and return it (0 if the cache lost it)."""
    cache.add(key, 0, COUNT_SECONDS)
    try:
        return cache.incr(key, delta)
    except ValueError:  # expired in between
        return 0


# A chunk fetches with at most this many times SYNC_FETCH_THREADS, while the allowance goes
# unused; it has gone unused when no request waited for its slot for UNUSED_AFTER_SECONDS.
WIDEST = 4
UNUSED_AFTER_SECONDS = 0.2
RECOUNT_SECONDS = 0.1
# What the cache keeps per run and attempt, and for how long.
COUNTS = ("handed-out", "started")
COUNT_SECONDS = 3600


# -- account resources -------------------------------------------------------------------------


def _account_steps(account_work: list[str]) -> list[list[str]]:
    """The steps the account resources are fetched in: all in one (a step costs a task, a
    read of its run and a count of its own, and most of them are a request or a few), survey
    responses first: their pages keep a few requests going while the walk finds the first
    locations."""
    return [sorted(account_work, key=lambda r: r != "survey_responses")] if account_work else []


def sync_account_resource(*, tenant: Reseller, run_id: int, attempt: int,
                          resource: str | None = None, resources: list[str] | None = None,
                          run: SyncRun | None = None, claim: StepClaim | None = None) -> None:
    """Fetch and mirror account resources (`resources`, or the one `resource`); each counts
    as a step of the run, done or failed."""
    run = run if run is not None else SyncRun.objects.select_related("scope").get(pk=run_id)
    if run.attempt != attempt or run.is_finished:
        return
    try:
        client = _client(tenant)
    except SyncAborted as exc:
        _finish(run, status=SyncRun.Status.FAILED, error=str(exc))
        return
    chosen = list(resources) if resources is not None else [resource]
    errors = []
    with client:
        # A run limited to a subtree asks about its root (only subtree resources get here).
        root = run.scope.remote_id if run.scope_id is not None else tenant.account_number
        heartbeat = claim.heartbeat() if claim is not None else NO_HEARTBEAT
        for name in chosen:
            try:
                heartbeat.beat()
                ACCOUNT_SYNCS[name](tenant=tenant, client=client, business_number=root)
            except (AuthError, RateLimited, Transient) as exc:
                _add_traffic(run, client.stats)
                if isinstance(exc, AuthError):
                    _abort_for_rejected_key(tenant=tenant, run=run, error=exc)
                    return
                raise
            except ProviderError as exc:
                errors.append(f"{name}: {exc}")
            except BaseException:
                _add_traffic(run, client.stats)
                raise
    _progress(run, attempt=attempt, done=len(chosen) - len(errors), errors=errors,
              traffic=client.stats, claim=claim)


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
    "requests_made = requests_made + %s, rate_limited = rate_limited + %s, updated_at = %s "
    "WHERE id = %s AND reseller_id = %s AND attempt = %s RETURNING done, failed, total"
)


def _progress(run: SyncRun, *, attempt: int, done: int, errors: list[str],
              traffic: ClientStats | None = None, claim: StepClaim | None = None,
              failed: int | None = None) -> None:
    """Count a step's work in its run (and close the run if it was the last): `done` done,
    `failed` failed (one per error unless said), once under the step's claim when it has one,
    and again after a lost database connection rather than fetching it all again."""
    failed = len(errors) if failed is None else failed
    counted = with_reconnect(lambda: _count_step(run, attempt=attempt, done=done,
                                                 failed=failed, errors=errors,
                                                 traffic=traffic, claim=claim),
                             what=f"sync {run.pk}")
    if counted is None:
        return
    done_so_far, failed_so_far, total = counted
    if done_so_far + failed_so_far >= total:
        with_reconnect(lambda: _finish_if_complete(run, attempt), what=f"sync {run.pk}")


def _count_step(run: SyncRun, *, attempt: int, done: int, failed: int, errors: list[str],
                traffic: ClientStats | None, claim: StepClaim | None):
    """The count of `_progress`, and the step's end with it (one transaction when there is
    more than the count to write: the step's end under its claim, or errors to keep)."""
    requests, rate_limited = (traffic.requests, traffic.rate_limited) if traffic else (0, 0)

    def count():
        # One statement per step adds its counts and its traffic and says whether the run is
        # now complete, instead of one write each and a completion check after every step.
        with connection.cursor() as cursor:
            cursor.execute(_COUNT_STEP_SQL, [done, failed, requests, rate_limited,
                                             _now_param(), run.pk, run.reseller_id, attempt])
            return cursor.fetchone()

    if claim is None and not errors:
        counted = count()
        if counted is None and traffic is not None:
            _add_traffic(run, traffic)  # a step of an older attempt still spent its requests
        return counted
    with transaction.atomic():
        if claim is not None and not claim.done():
            # Another worker took the step up meanwhile: it counts it; only the traffic stays.
            if traffic is not None:
                _add_traffic(run, traffic)
            return None
        counted = count()
        if counted is None:
            if traffic is not None:
                _add_traffic(run, traffic)  # a step of an older attempt still spent requests
            return None
        if errors:
            locked = SyncRun.objects.select_for_update().get(pk=run.pk)
            room = SyncRun.MAX_ERRORS_KEPT - len(locked.errors)
            if room > 0:
                locked.errors = [*locked.errors, *errors[:room]]
                locked.save(update_fields=["errors", "updated_at"])
    return counted


def _finish_if_complete(run: SyncRun, attempt: int) -> None:
    """Close the run if every step is counted: its status, end and what the mirror holds, in
    the one statement that claims it (a run completed by two steps at once is closed once)."""
    now = timezone.now()
    claimed = SyncRun.objects.filter(
        pk=run.pk, attempt=attempt, status=SyncRun.Status.RUNNING,
        total__lte=F("done") + F("failed"),
    ).update(
        status=Case(When(failed__gt=0, then=Value(SyncRun.Status.PARTIAL)),
                    default=Value(SyncRun.Status.SUCCEEDED)),
        finished_at=now, updated_at=now,
        counts=JSONObject(**_mirror_count_expressions(run.reseller_id, scope=run.scope)))
    if claimed:
        history_after_run(tenant=run.reseller)
        alerts_after_run(tenant=run.reseller, run_id=run.pk)


STALLED = ("The sync stopped making progress: no worker worked on it for {minutes} minutes. "
           "Start it again.")


def _end_stalled(run: SyncRun) -> None:
    _finish(run, status=SyncRun.Status.FAILED,
            error=STALLED.format(minutes=max(1, settings.SYNC_STALE_AFTER_SECONDS // 60)))


def sync_runs_end_stalled(*, now=None) -> int:
    """End the runs that stopped progressing (none of their steps is alive either), so that
    none stays "running" for ever; returns how many."""
    stale_before = (now or timezone.now()) - timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS)
    stalled = list(SyncRun.unscoped.select_related("reseller").filter(
        status__in=ACTIVE, updated_at__lt=stale_before).exclude(run_alive_since(stale_before)))
    for run in stalled:
        with tenant_scope(run.reseller):
            _end_stalled(run)
    return len(stalled)


def sync_step_give_up(*, step: SyncStep, reason: str) -> None:
    """A step that lost its worker too many times: its part counts as failed, with why."""
    if not SyncStep.unscoped.filter(pk=step.pk, state__in=(
            SyncStep.State.QUEUED, SyncStep.State.RUNNING)).update(
            state=SyncStep.State.FAILED, finished_at=timezone.now()):
        return
    run = SyncRun.unscoped.select_related("reseller", "scope").get(pk=step.run_id)
    with tenant_scope(run.reseller):
        if step.kind == SyncStep.Kind.WALK:
            _finish(run, status=SyncRun.Status.FAILED, error=reason)
            return
        _progress(run, attempt=step.attempt, done=0, errors=[reason], failed=step.expected)


def _finish(run: SyncRun, *, status: str, error: str = "") -> None:
    updates = {"status": status, "finished_at": timezone.now()}
    unfinished = SyncRun.objects.filter(pk=run.pk).exclude(status__in=SyncRun.FINISHED)
    with transaction.atomic():
        if error:
            # The errors as stored (the step may hold only part of its run), kept under the
            # lock so that two steps failing at once both keep theirs.
            stored = unfinished.select_for_update().values_list("errors", flat=True).first()
            if stored is None:
                return
            updates["errors"] = [*stored, error][: SyncRun.MAX_ERRORS_KEPT]
        unfinished.update(**updates)
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
    return (Reseller.objects.filter(pk=tenant.pk)
            .values(**_mirror_count_expressions(tenant.pk, scope=scope)).get())


def _mirror_count_expressions(tenant_id: int, *, scope: Business | None) -> dict:
    """The counts of `mirror_counts` as expressions, so that one statement reads them all."""

    live = {"reseller_id": tenant_id, "removed_at__isnull": True}

    def within(prefix: str) -> Q:
        return scope.subtree_q(prefix) if scope is not None else Q()

    def count(rows) -> Coalesce:
        # One group (the reseller's), or none at all when there is no row.
        return Coalesce(Subquery(rows.order_by().values("reseller_id")
                                 .annotate(n=Count("*")).values("n")), 0)

    businesses = Business.objects.filter(within(""), **live)
    counts = {
        "businesses": count(businesses),
        "locations": count(businesses.filter(type=Business.Type.BUSINESS)),
        "status_reports": count(ListingStatusReport.objects.filter(within("business__"),
                                                                   **live)),
        "listing_sites": count(ListingSite.objects.filter(within("business__"), **live)),
        "media": count(MediaItem.objects.filter(within("business__"), **live)),
        "questions": count(Question.objects.filter(within("business__"), **live)),
        "answers": count(Answer.objects.filter(within("question__business__"), **live)),
    }
    if scope is None:
        counts["competitor_metrics"] = count(CompetitorMetric.objects.filter(**live))
        counts["survey_responses"] = count(SurveyResponse.objects.filter(**live))
    return counts


def sync_start(*, tenant: Reseller, actor: User | None, resources: Iterable[str] | None = None,
               scope: Business | None = None) -> tuple[SyncRun, bool]:
    """Create a run (or find the active one) and queue it once the transaction commits."""
    run, created = sync_run_create(tenant=tenant, actor=actor, resources=resources, scope=scope)
    if created:
        transaction.on_commit(lambda: sync_run_dispatch(run))
    return run, created


def sync_run_dispatch(run: SyncRun) -> None:
    """Hand a new run's first step (the walk) to the workers, as a step row first."""
    from sync import steps

    step = steps.step_create(run=run, attempt=run.attempt + 1, kind=SyncStep.Kind.WALK,
                             arguments={"run_id": run.pk})
    try:
        tasks.sync_run_task.delay(reseller_id=run.reseller_id, run_id=run.pk, step_id=step.pk)
    except Exception:  # noqa: BLE001 - the broker is down
        # Failing the run says so on its page, and a queued run nobody will start would block
        # the next one until it goes stale.
        logger.warning("sync %s: could not queue its first step", run.pk, exc_info=True)
        _finish(run, status=SyncRun.Status.FAILED,
                error="The task queue is unavailable; start the sync again later.")

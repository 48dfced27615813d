"""Sync benchmark: a full sync of one reseller at the provider's rate limit, against its targets.

    .venv/bin/python bench/sync.py [--locations N | --large] [--rate-limit R] [--latency-ms MS]
                                   [--client-rate-limit C|auto] [--workers W] [--scaling]
                                   [--chart PATH] [--json]

What one run does (PostgreSQL and Redis must be running; nothing else is needed):
1. drops and creates the bench's own database, migrates it, flushes its two Redis databases;
2. seeds the embedded sandbox with N locations, latency MS per request and a limit of R requests
   per second for the key, and creates a reseller on that key with the same limit (or C, or a
   limit to learn with `--client-rate-limit auto`);
3. serves the portal (and so the sandbox) with gunicorn on loopback;
4. baseline: the requests of a full sync made by a bare loop (bench/_sync_baseline.py) with the
   same concurrency (W processes x SYNC_FETCH_THREADS threads), the same client and limiter, and
   no database;
5. the sync: W Celery worker processes (prefork) on Redis and PostgreSQL, one run of every
   resource, started as the portal starts one; locations mirrored are sampled every 0.25 s;
6. with `--client-rate-limit auto`, the key is left idle for a minute (as between two nightly
   runs) and the sync is run again, starting from the rate the first run learned;
7. prints each figure against its target (or, with --json, one JSON object last).

With --scaling the sync alone is run again at 10,000 locations (fresh database, fresh workers) to
show that a worker's peak memory does not grow with the size of the tenant.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import _sync_stack as stack  # noqa: E402
from bench._sync_baseline import BaselineOptions, run_baseline  # noqa: E402
from bench._sync_chart import progress_svg  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/portal_bench_sync"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/2"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/3"
SANDBOX_KEY = "bench-sync-sandbox-key-0001"  # a key of the bench's own sandbox only
LARGE_LOCATIONS = 10_000
SYNC_TASKS = ("sync_run_task", "sync_location_chunk_task", "sync_account_resource_task")

# Targets of the issues (16 for the rate figures); memory is judged across sizes (--scaling),
# not within one run.
MIN_RATE_RATIO = 0.97  # a known limit
MAX_RATE_LIMITED = 0.005
MAX_OVERHEAD = 1.02
MIN_AUTO_RATE_RATIO = 0.90  # a learned limit, warm-up included
MAX_AUTO_RATE_LIMITED = 0.02
MIN_AUTO_SECOND_RATE_RATIO = 0.95  # the next run, starting from what was learned
MAX_QUERIES_PER_LOCATION = 0.1
MAX_MEMORY_GROWTH = 1.10
AUTO = "auto"
# Longer than the pacer's idea of an idle key (provider.adaptive), so that the second run starts
# as the next night's would.
IDLE_BETWEEN_RUNS_S = 62


@dataclass
class SyncFigures:
    locations: int
    status: str
    mirrored_locations: int
    wall_s: float
    requests: int
    rate_limited: int
    ideal_s: float
    achieved_rate_ratio: float
    rate_limited_fraction: float
    queries: int
    queries_per_location: float
    queries_by_task: dict[str, int]
    tasks: dict[str, int]
    peak_worker_mb: float
    worker_peaks_mb: list[float]
    worker_cpu_s: float
    server_cpu_s: float
    steps: list[tuple[int, str, float, float]]  # worker, task, start, end (s since queued)
    samples: list[tuple[float, int]] = field(repr=False)
    errors: list[str] = field(default_factory=list)
    # With a learned limit: the pacer's rate when the run ended, and sampled during it.
    learned_rate: float | None = None
    rate_samples: list[tuple[float, float]] = field(default_factory=list, repr=False)
    # Requests the sandbox counted in each of its windows (429s included), from the window the
    # run was queued in: where the allowance went unused.
    provider_hits: list[int] = field(default_factory=list)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locations", type=int, default=2000,
                        help="locations in the sandbox (default %(default)s)")
    parser.add_argument("--large", action="store_const", const=LARGE_LOCATIONS,
                        dest="locations", help=f"{LARGE_LOCATIONS:,} locations")
    parser.add_argument("--rate-limit", type=int, default=100, metavar="R",
                        help="provider requests per second allowed for the key (default 100)")
    parser.add_argument("--latency-ms", type=int, default=30, metavar="MS",
                        help="latency the sandbox adds to every request (default 30)")
    parser.add_argument("--client-rate-limit", type=_client_limit, metavar="C|auto",
                        help="the reseller's own limit, if it should differ from the sandbox's "
                             "R (to try a safety margin, e.g. C = R - 1), or auto: the limit is "
                             "learned, and the sync is run a second time from what it learned")
    parser.add_argument("--workers", type=int, default=4, metavar="W",
                        help="Celery worker processes sharing the key (default 4)")
    parser.add_argument("--web-workers", type=int, default=3,
                        help="gunicorn worker processes (default 3, 8 threads each)")
    parser.add_argument("--scaling", action="store_true",
                        help=f"also sync {LARGE_LOCATIONS:,} locations to compare worker memory")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the bare-loop baseline (no overhead figure)")
    parser.add_argument("--chart", metavar="PATH", help="write the progress chart (SVG) here")
    parser.add_argument("--profile-dir", metavar="DIR",
                        help="leave a pyinstrument profile of every task and a log of every "
                             "query here (slows the sync: for diagnosis, not for figures)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object of the figures, last")
    parser.add_argument("--database-url",
                        default=os.environ.get("BENCH_SYNC_DATABASE_URL", DEFAULT_DATABASE_URL),
                        help="the bench's database, dropped and created on every run; its name "
                             "must contain 'bench' (default: $BENCH_SYNC_DATABASE_URL or "
                             "%(default)s)")
    parser.add_argument("--redis-url",
                        default=os.environ.get("BENCH_SYNC_REDIS_URL", DEFAULT_REDIS_URL),
                        help="Redis for cache and rate limiter, flushed on every run "
                             "(default: $BENCH_SYNC_REDIS_URL or %(default)s)")
    parser.add_argument("--broker-url",
                        default=os.environ.get("BENCH_SYNC_BROKER_URL", DEFAULT_BROKER_URL),
                        help="Redis for the Celery broker, flushed on every run "
                             "(default: $BENCH_SYNC_BROKER_URL or %(default)s)")
    args = parser.parse_args(argv)
    for name in ("locations", "rate_limit", "workers", "web_workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.client_rate_limit not in (None, AUTO) and args.client_rate_limit < 1:
        parser.error("--client-rate-limit must be at least 1, or auto")
    if args.latency_ms < 0:
        parser.error("--latency-ms must be 0 or more")
    return args


def _client_limit(text: str) -> int | str:
    if text.strip().lower() == AUTO:
        return AUTO
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a count nor auto") from None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else (
        lambda text: print(text, flush=True))
    load_before = os.getloadavg()
    if load_before[0] > 1.0:
        say(f"Note: load average is {load_before[0]:.2f} on {os.cpu_count()} cores; other work "
            "on the machine will distort the figures.")
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as tmp:
        data_dir = Path(tmp)
        env = stack.bench_environment(database_url=args.database_url, redis_url=args.redis_url,
                                      broker_url=args.broker_url, data_dir=data_dir)
        if args.profile_dir:
            profile_dir = Path(args.profile_dir).resolve()
            profile_dir.mkdir(parents=True, exist_ok=True)
            env["BENCH_SYNC_PROFILE_DIR"] = str(profile_dir)
            env["BENCH_SYNC_QUERY_LOG_DIR"] = str(profile_dir)
        os.environ.update(env)
        import django

        django.setup()
        try:
            main_run, baseline, second_run = measure(args, env, data_dir,
                                                     locations=args.locations,
                                                     with_baseline=not args.no_baseline,
                                                     say=say)
            large_run = None
            if args.scaling:
                large_run, _, _ = measure(args, env, data_dir, locations=LARGE_LOCATIONS,
                                          with_baseline=False, say=say, second=False)
        except stack.StackError as exc:
            print(f"bench/sync.py: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("bench/sync.py: interrupted; services stopped.", file=sys.stderr)
            return 130
        versions = stack.server_versions(args.database_url, args.redis_url)
    report = build_report(args, main_run, baseline, large_run, versions,
                          load=(load_before, os.getloadavg()), second=second_run)
    if args.chart:
        title = (f"Sync of {main_run.locations:,} locations at {args.rate_limit} requests/s, "
                 f"{args.workers} workers")
        Path(args.chart).write_text(progress_svg(samples=main_run.samples,
                                                 total=main_run.locations,
                                                 ideal_s=main_run.ideal_s, title=title),
                                    encoding="utf-8")
    print_table(report, say)
    if args.json:
        print(json.dumps(report), flush=True)
    runs = [main_run] + ([second_run] if second_run else [])
    return 0 if all(run.status in ("succeeded", "partial") for run in runs) else 1


def measure(args: argparse.Namespace, env: dict[str, str], data_dir: Path, *, locations: int,
            with_baseline: bool, say, second: bool = True,
            ) -> tuple[SyncFigures, object | None, SyncFigures | None]:
    """The baseline and the sync; with a learned limit, a second sync from what it learned."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    from accounts.models import Reseller
    from accounts.services import reseller_create_or_update
    from portal.tenancy import tenant_scope
    from reviews_app.services import survey_add
    from sandbox.seeding import seed_partner

    say(f"[sync bench] {locations:,} locations: fresh database, migrations, sandbox seed ...")
    connections.close_all()
    stack.database_recreate(args.database_url)
    store = stack.redis_flush(args.redis_url)
    stack.redis_flush(args.broker_url)
    call_command("migrate", verbosity=0, interactive=False)
    seeded = seed_partner(api_key=SANDBOX_KEY, locations=locations, seed=1,
                          rate_limit=(args.rate_limit, 1), latency_ms=args.latency_ms,
                          error_rate=0.0)
    _settle_sandbox(seeded["account_number"])
    port = stack.free_port()
    reseller, _ = reseller_create_or_update(
        actor=None, slug="bench-sync", name="Sync bench agency",
        account_number=seeded["account_number"],
        provider_base_url=f"http://127.0.0.1:{port}/sandbox", api_key=SANDBOX_KEY)
    learn = args.client_rate_limit == AUTO
    # A new connection learns its limit; a known one is set, as an agency that knows it would.
    known = args.rate_limit if learn else (args.client_rate_limit or args.rate_limit)
    Reseller.objects.filter(pk=reseller.pk).update(rate_limit_auto=learn,
                                                   rate_limit_count=known, rate_limit_seconds=1)
    reseller.refresh_from_db()
    with tenant_scope(reseller):
        for survey_id in seeded["survey_ids"]:
            survey_add(tenant=reseller, actor=None, remote_id=survey_id)

    # Seeding and settling may have queued the sandbox's own tasks (webhook deliveries): they
    # are not the sync's work, and must not wait in the broker for the sync's workers.
    stack.redis_flush(args.broker_url)
    with stack.Services(env=env, log_dir=data_dir) as services:
        say(f"[sync bench] gunicorn on 127.0.0.1:{port} ({args.web_workers} workers)")
        services.start_gunicorn(port=port, workers=args.web_workers, threads=8)
        server_pid = services.processes["gunicorn"].pid
        baseline = None
        if with_baseline:
            say(f"[sync bench] baseline: bare loop, {args.workers} processes x "
                f"{settings.SYNC_FETCH_THREADS} threads ...")
            baseline = run_baseline(BaselineOptions(
                base_url=f"http://127.0.0.1:{port}/sandbox", api_key=SANDBOX_KEY,
                account_number=seeded["account_number"], survey_ids=seeded["survey_ids"],
                rate_limit=known, redis_url=args.redis_url,
                processes=args.workers, threads=settings.SYNC_FETCH_THREADS,
                qna_page_size=settings.SYNC_QNA_PAGE_SIZE,
                report_lookback_days=settings.SYNC_REPORT_LOOKBACK_DAYS,
                timeout=(settings.PROVIDER_CONNECT_TIMEOUT, settings.PROVIDER_READ_TIMEOUT),
                max_retries=settings.PROVIDER_MAX_RETRIES,
                backoff_base=settings.PROVIDER_BACKOFF_BASE_SECONDS,
            ))
            baseline.server_cpu_s = round(_tree_cpu_seconds(server_pid), 1)
            say(f"[sync bench] baseline: {baseline.requests:,} requests in "
                f"{baseline.wall_s:.1f} s, {baseline.rate_limited} answered 429")
            time.sleep(1.1)  # let the sandbox's fixed window of the baseline run out
        worker = services.start_workers(concurrency=args.workers, store=store)
        say(f"[sync bench] sync: {args.workers} Celery worker processes ...")
        server_cpu_before = _tree_cpu_seconds(server_pid)
        figures = run_sync(reseller=reseller, locations=locations, rate_limit=args.rate_limit,
                           store=store, worker_pid=worker.pid)
        figures.server_cpu_s = round(_tree_cpu_seconds(server_pid) - server_cpu_before, 1)
        say(f"[sync bench] sync: {figures.status}, {figures.requests:,} requests in "
            f"{figures.wall_s:.1f} s" + _learned_text(figures))
        again = None
        if learn and second:
            say(f"[sync bench] the key idle for {IDLE_BETWEEN_RUNS_S} s, as between two "
                "nightly runs; then the sync again, from the rate it learned ...")
            time.sleep(IDLE_BETWEEN_RUNS_S)
            _reset_counters(store)
            server_cpu_before = _tree_cpu_seconds(server_pid)
            again = run_sync(reseller=reseller, locations=locations, rate_limit=args.rate_limit,
                             store=store, worker_pid=worker.pid)
            again.server_cpu_s = round(_tree_cpu_seconds(server_pid) - server_cpu_before, 1)
            say(f"[sync bench] second sync: {again.status}, {again.requests:,} requests in "
                f"{again.wall_s:.1f} s" + _learned_text(again))
    connections.close_all()
    return figures, baseline, again


def _learned_text(figures: SyncFigures) -> str:
    if figures.learned_rate is None:
        return ""
    return f", {figures.rate_limited} answered 429, learned {figures.learned_rate:.1f}/s"


def _reset_counters(store) -> None:
    """The workers' counts of the first run, so that the second run's are its own."""
    from bench import _sync_worker as worker

    store.delete(worker.QUERIES_KEY, worker.QUERIES_BY_TASK_KEY, worker.TASKS_KEY,
                 worker.TIMELINE_KEY, worker.STARTED_KEY, worker.FINISHED_KEY)


def _settle_sandbox(account_number: int) -> None:
    """Bring the seeded listing statuses to their final state before measuring.

    The seeder leaves some sites on their way (due some hours after midnight), and the sandbox
    applies due steps on the next status read, with writes and webhook events. Whichever pass
    read first (the baseline) would then make the sandbox work harder than the other; settled,
    both passes ask the same read-only work of it. The partner's webhook subscriptions go too:
    deliveries are the provider's work, not the portal's.
    """
    from datetime import timedelta

    from django.utils import timezone

    from sandbox.models import PartnerAccount, Subscription
    from sandbox.status import advance_due_sites

    partner = PartnerAccount.objects.get(account_number=account_number)
    Subscription.objects.filter(partner=partner).delete()
    far_ahead = timezone.now() + timedelta(days=2)
    while advance_due_sites(now=far_ahead):
        pass


def run_sync(*, reseller, locations: int, rate_limit: int, store, worker_pid: int) -> SyncFigures:
    from accounts.models import SyncRun
    from accounts.provider_access import learned_rate
    from bench._sync_worker import QUERIES_BY_TASK_KEY, TASKS_KEY, TIMELINE_KEY
    from listings.models import ListingStatusReport
    from portal.tenancy import tenant_scope
    from sandbox.models import PartnerAccount, RateLimitCounter
    from sync.services import sync_run_create
    from sync.tasks import sync_run_task

    partner = PartnerAccount.objects.get(account_number=reseller.account_number)
    window_s = partner.rate_limit_window_seconds

    with tenant_scope(reseller):
        run, _created = sync_run_create(tenant=reseller, actor=None)
    queued_at = time.time()
    first_window = int(queued_at // window_s)
    hits: dict[int, int] = {}
    sync_run_task.delay(reseller_id=reseller.pk, run_id=run.pk)
    # Generous: a sync slower than four times the ideal has failed the bench anyway.
    deadline = queued_at + 120 + 4 * 3 * locations / rate_limit
    samples: list[tuple[float, int]] = [(0.0, 0)]
    rates: list[tuple[float, float]] = []
    mirrored_reports = ListingStatusReport.unscoped.filter(reseller=reseller,
                                                           removed_at__isnull=True)
    # A second run mirrors over the first one's rows: progress is what this run wrote.
    mirrored_before = mirrored_reports.count()
    while True:
        time.sleep(0.25)
        status = SyncRun.unscoped.values_list("status", flat=True).get(pk=run.pk)
        at = round(time.time() - queued_at, 2)
        if mirrored_before:
            written = mirrored_reports.filter(last_seen_at__gte=run.created_at).count()
        else:
            written = mirrored_reports.count()
        samples.append((at, written))
        rate = learned_rate(reseller)
        if rate is not None:
            rates.append((at, round(rate, 1)))
        # The sandbox drops a window's count two windows later: read them while they last.
        hits.update(RateLimitCounter.objects.filter(partner=partner,
                                                    window_index__gte=first_window)
                    .values_list("window_index", "hits"))
        if status in SyncRun.FINISHED:
            break
        if time.time() > deadline:
            raise stack.StackError(f"the sync did not finish in {deadline - queued_at:.0f} s "
                                   f"(status {status})")
    # The step that finished the run still writes its counts, and a step of an older attempt
    # may still be running: their queries belong to the run.
    _wait_until_idle(store)
    hits.update(RateLimitCounter.objects.filter(partner=partner, window_index__gte=first_window)
                .values_list("window_index", "hits"))
    run = SyncRun.unscoped.get(pk=run.pk)
    # Read while the pool processes are alive: VmHWM is each one's peak resident memory.
    peaks = [mb for mb in (stack.peak_rss_mb(pid) for pid in stack.worker_children(worker_pid))
             if mb is not None]
    worker_cpu_s = sum(stack.cpu_seconds(pid) for pid in stack.worker_children(worker_pid))
    wall_s = (run.finished_at.timestamp() if run.finished_at else time.time()) - queued_at
    answered = run.requests_made - run.rate_limited
    ideal_s = answered / rate_limit
    queries_by_task = {k.decode(): int(v) for k, v in store.hgetall(QUERIES_BY_TASK_KEY).items()}
    # Only the sync's steps: anything else a worker ran is not the sync's cost.
    queries = sum(n for task, n in queries_by_task.items() if task in SYNC_TASKS)
    return SyncFigures(
        locations=locations, status=run.status,
        mirrored_locations=(run.counts or {}).get("locations", 0), wall_s=round(wall_s, 2),
        requests=run.requests_made, rate_limited=run.rate_limited, ideal_s=round(ideal_s, 2),
        achieved_rate_ratio=round(ideal_s / wall_s, 3) if wall_s else 0.0,
        rate_limited_fraction=round(run.rate_limited / max(run.requests_made, 1), 4),
        queries=queries, queries_per_location=round(queries / locations, 3),
        queries_by_task=queries_by_task,
        tasks={k.decode(): int(v) for k, v in store.hgetall(TASKS_KEY).items()},
        peak_worker_mb=round(max(peaks, default=0.0), 1),
        worker_peaks_mb=[round(mb, 1) for mb in peaks], worker_cpu_s=round(worker_cpu_s, 1),
        server_cpu_s=0.0, samples=samples, errors=run.errors[:5],
        steps=_steps(store.lrange(TIMELINE_KEY, 0, -1), since=queued_at),
        learned_rate=(None if (rate := learned_rate(reseller)) is None else round(rate, 1)),
        rate_samples=rates,
        provider_hits=[hits.get(index, 0)
                       for index in range(first_window, max(hits, default=first_window) + 1)],
    )


def _steps(events: list[bytes], *, since: float) -> list[tuple[int, str, float, float]]:
    """Pair the workers' start and end events into (worker number, task, start, end)."""
    started: dict[str, tuple[str, float]] = {}
    workers: dict[str, int] = {}
    steps = []
    for event in events:
        at, pid, kind, name = event.decode().split()
        worker = workers.setdefault(pid, len(workers) + 1)
        if kind == "start":
            started[pid] = (name, float(at))
        elif pid in started:
            name, begun = started.pop(pid)
            steps.append((worker, name.removeprefix("sync_").removesuffix("_task"),
                          round(begun - since, 2), round(float(at) - since, 2)))
    return steps


def _wait_until_idle(store, timeout: float = 60.0) -> None:
    from bench._sync_worker import FINISHED_KEY, STARTED_KEY

    deadline = time.monotonic() + timeout
    while int(store.get(STARTED_KEY) or 0) != int(store.get(FINISHED_KEY) or 0):
        if time.monotonic() > deadline:
            raise stack.StackError("the workers were still busy a minute after the run finished")
        time.sleep(0.1)


def _tree_cpu_seconds(pid: int) -> float:
    """CPU time of a server's worker processes (gunicorn's master only supervises)."""
    return sum(stack.cpu_seconds(child) for child in stack.worker_children(pid))


def build_report(args, run: SyncFigures, baseline, large: SyncFigures | None, versions,
                 *, load, second: SyncFigures | None = None) -> dict:
    learn = args.client_rate_limit == AUTO
    report = {
        "achieved_rate_ratio": run.achieved_rate_ratio,
        "rate_limited_fraction": run.rate_limited_fraction,
        "overhead_ratio": round(run.wall_s / baseline.wall_s, 3) if baseline else None,
        "queries_per_location": run.queries_per_location,
        "peak_worker_mb": run.peak_worker_mb,
        "wall_s": run.wall_s,
        "ideal_s": run.ideal_s,
        "locations": run.locations,
        "mirrored_locations": run.mirrored_locations,
        "status": run.status,
        "requests": run.requests,
        "rate_limited": run.rate_limited,
        "queries": run.queries,
        "queries_by_task": run.queries_by_task,
        "tasks": run.tasks,
        "worker_peaks_mb": run.worker_peaks_mb,
        "worker_cpu_s": run.worker_cpu_s,
        "steps": run.steps,
        "server_cpu_s": run.server_cpu_s,
        "baseline": asdict(baseline) if baseline else None,
        "rate_limit": args.rate_limit,
        "client_rate_limit": AUTO if learn else (args.client_rate_limit or args.rate_limit),
        "learned_rate": run.learned_rate,
        # The pacer's rate, one sample a second (the first of each second).
        "learned_rate_samples": _per_second(run.rate_samples),
        "provider_hits": run.provider_hits,
        "latency_ms": args.latency_ms,
        "workers": args.workers,
        "errors": run.errors,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cores": os.cpu_count(),
            "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30,
                               1),
            "python": platform.python_version(),
            **versions,
            "load_before": [round(v, 2) for v in load[0]],
            "load_after": [round(v, 2) for v in load[1]],
        },
    }
    if second is not None:
        report["second_run"] = {
            "achieved_rate_ratio": second.achieved_rate_ratio,
            "rate_limited_fraction": second.rate_limited_fraction,
            "overhead_ratio": round(second.wall_s / baseline.wall_s, 3) if baseline else None,
            "learned_rate": second.learned_rate,
            "learned_rate_samples": _per_second(second.rate_samples),
            "provider_hits": second.provider_hits,
            **{k: v for k, v in asdict(second).items()
               if k not in ("samples", "rate_samples", "achieved_rate_ratio",
                            "rate_limited_fraction", "learned_rate", "provider_hits")},
        }
    if large is not None:
        report["large"] = {k: v for k, v in asdict(large).items()
                           if k not in ("samples", "rate_samples")}
        report["peak_worker_mb_large"] = large.peak_worker_mb
        report["memory_growth_ratio"] = round(large.peak_worker_mb / run.peak_worker_mb, 3)
    return report


def _per_second(samples: list[tuple[float, float]]) -> list[tuple[float, float]]:
    kept, last = [], None
    for at, rate in samples:
        if last is None or int(at) != last:
            kept.append((at, rate))
            last = int(at)
    return kept


def print_table(report: dict, say) -> None:
    def verdict(ok: bool | None) -> str:
        return "n/a" if ok is None else ("met" if ok else "MISSED")

    overhead = report["overhead_ratio"]
    growth = report.get("memory_growth_ratio")
    learn = report["client_rate_limit"] == AUTO
    min_ratio, max_limited = ((MIN_AUTO_RATE_RATIO, MAX_AUTO_RATE_LIMITED) if learn
                              else (MIN_RATE_RATIO, MAX_RATE_LIMITED))
    rows = [
        ("achieved request rate / R" + (", learning" if learn else ""),
         f"{report['achieved_rate_ratio']:.3f}",
         f">= {min_ratio:.2f}", verdict(report["achieved_rate_ratio"] >= min_ratio)),
        ("requests answered 429", f"{report['rate_limited_fraction']:.2%}",
         f"<= {max_limited:.1%}", verdict(report["rate_limited_fraction"] <= max_limited)),
    ]
    second = report.get("second_run")
    if second is not None:
        rows += [
            ("  second run, from the learned rate", f"{second['achieved_rate_ratio']:.3f}",
             f">= {MIN_AUTO_SECOND_RATE_RATIO:.2f}",
             verdict(second["achieved_rate_ratio"] >= MIN_AUTO_SECOND_RATE_RATIO)),
            ("  its requests answered 429", f"{second['rate_limited_fraction']:.2%}",
             f"<= {MAX_AUTO_RATE_LIMITED:.1%}",
             verdict(second["rate_limited_fraction"] <= MAX_AUTO_RATE_LIMITED)),
        ]
    rows += [
        # The bare loop runs at the known limit: against a learned one, this is what learning
        # costs, reported without a target.
        ("mirroring overhead (sync / bare loop)",
         "-" if overhead is None else f"{overhead:.3f}x",
         "none (learning)" if learn else f"<= {MAX_OVERHEAD:.2f}x",
         verdict(None if overhead is None or learn else overhead <= MAX_OVERHEAD)),
        ("database queries per location", f"{report['queries_per_location']:.3f}",
         f"<= {MAX_QUERIES_PER_LOCATION}",
         verdict(report["queries_per_location"] <= MAX_QUERIES_PER_LOCATION)),
        ("peak worker memory (max of pool)", f"{report['peak_worker_mb']:.1f} MB",
         "flat as N grows", "see below" if growth is not None else "n/a (--scaling)"),
    ]
    if growth is not None:
        rows.append((f"  at {report['large']['locations']:,} locations",
                     f"{report['peak_worker_mb_large']:.1f} MB ({growth:.2f}x)",
                     f"<= {MAX_MEMORY_GROWTH:.2f}x", verdict(growth <= MAX_MEMORY_GROWTH)))
    baseline = report["baseline"]
    say("")
    client = report["client_rate_limit"]
    say(f"Sync of {report['locations']:,} locations (mirrored {report['mirrored_locations']:,}, "
        f"{report['status']}), rate limit {report['rate_limit']}/s"
        + (" (client: learned)" if learn else
           f" (client {client}/s)" if client != report["rate_limit"] else "")
        + f", latency "
        f"{report['latency_ms']} ms, {report['workers']} workers")
    say(f"{'figure':<40} {'value':>18}  {'target':<16} result")
    for name, value, target, result in rows:
        say(f"{name:<40} {value:>18}  {target:<16} {result}")
    say(f"{'wall time':<40} {report['wall_s']:>16.1f} s  ideal {report['ideal_s']:.1f} s")
    say(f"{'requests made (429s)':<40} {report['requests']:>18,}  ({report['rate_limited']})")
    hits = report["provider_hits"]
    if len(hits) > 8:
        say(f"{'requests the provider counted, per second':<40} first "
            f"{' '.join(map(str, hits[:5]))} ... last {' '.join(map(str, hits[-5:]))}")
    if learn:
        say(f"{'rate learned (requests/s)':<40} {report['learned_rate'] or 0:>18.1f}  "
            + ", ".join(f"{rate:.0f} at {at:.0f} s"
                        for at, rate in report["learned_rate_samples"][:40:4]))
    if second is not None:
        say(f"{'second run: wall, requests (429s)':<40} {second['wall_s']:>16.1f} s  "
            f"{second['requests']:,} ({second['rate_limited']}), ideal {second['ideal_s']:.1f} s,"
            f" learned {second['learned_rate'] or 0:.1f}/s")
    if baseline:
        say(f"{'bare loop: wall time, requests (429s)':<40} {baseline['wall_s']:>16.1f} s  "
            f"{baseline['requests']:,} ({baseline['rate_limited']})")
    say(f"{'CPU: Celery workers, sandbox server':<40} {report['worker_cpu_s']:>16.1f} s  "
        f"{report['server_cpu_s']:.1f} s"
        + (f" (bare loop: server {baseline['server_cpu_s']:.1f} s)" if baseline else ""))
    say(f"{'queries by task':<40} {json.dumps(report['queries_by_task'])}")
    for worker in sorted({step[0] for step in report["steps"]}):
        mine = [step for step in report["steps"] if step[0] == worker]
        busy = sum(end - start for _w, _n, start, end in mine)
        say(f"{f'worker {worker}: steps, busy':<40} {len(mine):>10} steps  {busy:.1f} s busy, "
            f"{mine[0][2]:.1f}-{mine[-1][3]:.1f} s: "
            + ", ".join(f"{name} {start:.0f}-{end:.0f}" for _w, name, start, end in mine[:8])
            + (" ..." if len(mine) > 8 else ""))
    machine = report["machine"]
    say(f"Machine: {machine['cores']} cores, {machine['memory_gb']} GB, PostgreSQL "
        f"{machine['postgresql']}, Redis {machine['redis']}; load {machine['load_before'][0]}"
        f" before, {machine['load_after'][0]} after.")
    if report["errors"]:
        say(f"Errors: {report['errors']}")


if __name__ == "__main__":
    sys.exit(main())

"""Bulk change benchmark: sending one change to every location of a reseller, end to end, against
the provider's rate limit (docs/performance.md, "Bulk changes: sending").

    .venv/bin/python bench/bulk_send.py [--locations N] [--rate-limit R] [--workers W]
                                        [--latency-ms MS] [--no-single-wave]
                                        [--profile-dir DIR] [--json]

What one run does (PostgreSQL and Redis must be running; nothing else is needed):
1. drops and creates the bench's own database, migrates it, flushes its two Redis databases;
2. seeds the embedded sandbox with N locations, latency MS per request and a limit of R requests
   per second for the key, and creates a reseller on that key with the same limit;
3. serves the portal (and so the sandbox) with gunicorn on loopback, starts W Celery worker
   processes and beat with the outbox's and the bulk changes' sweeps (bench/_bulk_send_beat.py);
4. mirrors the account's businesses with a sync run (the `businesses` resource), as the portal
   starts one;
5. staged: a bulk change setting a new description on all N locations, dry run, then applied in
   waves of 5, 50 and the rest, without waiting for the directories' statuses; the workers send
   it; the bench samples the change every 0.25 s until it is done;
6. single wave (unless --no-single-wave): the same with another description, all at once;
7. prints each figure against its target (or, with --json, one JSON object last).

Requests are counted at the provider: the access log of the sandbox's server (every request
with its status, 429s included) and the sandbox's record of every create-listing body it
answered (which says which locations got the change, and how many times).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import _sync_stack as stack  # noqa: E402
from bench._bulk_send_measure import (  # noqa: E402
    ACCESS_LOG_FORMAT,
    Variant,
    build_report,
    print_table,
    send_change,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/portal_bench_bulk_send"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/7"
SANDBOX_KEY = "bench-bulk-send-sandbox-key-0001"  # a key of the bench's own sandbox only
DESCRIPTION = ("Family-run since 1962: fresh bread every morning, coffee roasted in town, and "
               "a table by the window. Run {marker}.")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locations", type=int, default=2000,
                        help="locations in the sandbox, all of them changed (default "
                             "%(default)s, at most 10,000: a bulk change's limit)")
    parser.add_argument("--rate-limit", type=int, default=50, metavar="R",
                        help="provider requests per second allowed for the key, and the "
                             "reseller's limit (default %(default)s)")
    parser.add_argument("--latency-ms", type=int, default=30, metavar="MS",
                        help="latency the sandbox adds to every request (default %(default)s)")
    parser.add_argument("--workers", type=int, default=4, metavar="W",
                        help="Celery worker processes (default %(default)s)")
    parser.add_argument("--web-workers", type=int, default=3,
                        help="gunicorn worker processes (default 3, 8 threads each)")
    parser.add_argument("--no-single-wave", action="store_true",
                        help="only the staged change (5, 50, the rest), not the single wave")
    parser.add_argument("--profile-dir", metavar="DIR",
                        help="leave a pyinstrument profile of every task and a log of every "
                             "query here (slows the workers: for diagnosis, not for figures)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object of the figures, last")
    parser.add_argument("--database-url",
                        default=os.environ.get("BENCH_BULK_SEND_DATABASE_URL",
                                               DEFAULT_DATABASE_URL),
                        help="the bench's database, dropped and created on every run; its name "
                             "must contain 'bench' (default: $BENCH_BULK_SEND_DATABASE_URL or "
                             "%(default)s)")
    parser.add_argument("--redis-url",
                        default=os.environ.get("BENCH_BULK_SEND_REDIS_URL", DEFAULT_REDIS_URL),
                        help="Redis for cache and rate limiter, flushed on every run "
                             "(default: $BENCH_BULK_SEND_REDIS_URL or %(default)s)")
    parser.add_argument("--broker-url",
                        default=os.environ.get("BENCH_BULK_SEND_BROKER_URL",
                                               DEFAULT_BROKER_URL),
                        help="Redis for the Celery broker, flushed on every run "
                             "(default: $BENCH_BULK_SEND_BROKER_URL or %(default)s)")
    args = parser.parse_args(argv)
    for name in ("locations", "rate_limit", "workers", "web_workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.locations > 10_000:
        parser.error("--locations: a bulk change takes at most 10,000 locations")
    if args.latency_ms < 0:
        parser.error("--latency-ms must be 0 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else (
        lambda text: print(text, flush=True))
    load_before = os.getloadavg()
    if load_before[0] > 1.0:
        say(f"Note: load average is {load_before[0]:.2f} on {os.cpu_count()} cores; other work "
            "on the machine will distort the figures.")
    variants = [Variant("staged", waves=[5, 50, args.locations])]
    if not args.no_single_wave:
        variants.append(Variant("single wave", waves=[]))
    with tempfile.TemporaryDirectory(prefix="bench-bulk-send-") as tmp:
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
            figures = measure(args, env, data_dir, variants=variants, say=say)
        except stack.StackError as exc:
            print(f"bench/bulk_send.py: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("bench/bulk_send.py: interrupted; services stopped.", file=sys.stderr)
            return 130
        versions = stack.server_versions(args.database_url, args.redis_url)
    report = build_report(args, figures, versions, load=(load_before, os.getloadavg()))
    print_table(report, say)
    if args.json:
        print(json.dumps(report), flush=True)
    return 0 if all(run["state"] == "done" for run in report["runs"]) else 1


def measure(args: argparse.Namespace, env: dict[str, str], data_dir: Path, *,
            variants: list[Variant], say) -> list:
    from django.core.management import call_command
    from django.db import connections

    from accounts.models import Reseller
    from accounts.services import reseller_create_or_update
    from sandbox.models import PartnerAccount, Subscription
    from sandbox.seeding import seed_partner

    say(f"[bulk send bench] {args.locations:,} locations: fresh database, migrations, "
        "sandbox seed ...")
    connections.close_all()
    stack.database_recreate(args.database_url)
    store = stack.redis_flush(args.redis_url)
    stack.redis_flush(args.broker_url)
    call_command("migrate", verbosity=0, interactive=False)
    seeded = seed_partner(api_key=SANDBOX_KEY, locations=args.locations, seed=1,
                          rate_limit=(args.rate_limit, 1), latency_ms=args.latency_ms,
                          error_rate=0.0)
    partner = PartnerAccount.objects.get(account_number=seeded["account_number"])
    # Webhook deliveries are the provider's work: none go out while the portal is measured.
    Subscription.objects.filter(partner=partner).delete()
    port = stack.free_port()
    reseller, _ = reseller_create_or_update(
        actor=None, slug="bench-bulk-send", name="Bulk send bench agency",
        account_number=seeded["account_number"],
        provider_base_url=f"http://127.0.0.1:{port}/sandbox", api_key=SANDBOX_KEY)
    Reseller.objects.filter(pk=reseller.pk).update(rate_limit_auto=False,
                                                   rate_limit_count=args.rate_limit,
                                                   rate_limit_seconds=1)
    reseller.refresh_from_db()
    # Seeding may have queued the sandbox's own tasks: they are not the portal's work.
    stack.redis_flush(args.broker_url)

    # Every request the sandbox answers, with its status: the 429s are counted from here.
    access_log = data_dir / "access.log"
    env = {**env, "GUNICORN_CMD_ARGS": f"--access-logfile {shlex.quote(str(access_log))} "
                                       f"--access-logformat {shlex.quote(ACCESS_LOG_FORMAT)}"}
    figures = []
    with stack.Services(env=env, log_dir=data_dir) as services:
        say(f"[bulk send bench] gunicorn on 127.0.0.1:{port} ({args.web_workers} workers), "
            f"{args.workers} Celery worker processes")
        services.start_gunicorn(port=port, workers=args.web_workers, threads=8)
        worker = services.start_workers(concurrency=args.workers, store=store)
        mirrored = mirror_businesses(reseller=reseller, expected=args.locations,
                                     timeout=120 + args.locations / 20)
        say(f"[bulk send bench] sync: {mirrored:,} locations mirrored")
        services.start("beat", [
            str(stack.BIN / "celery"), "-A", "bench._bulk_send_beat", "beat",
            "--schedule", str(data_dir / "beat-schedule"), "--loglevel", "WARNING"])
        numbers = sorted(seeded["location_numbers"])
        for index, variant in enumerate(variants):
            if index:
                time.sleep(1.1)  # the sandbox's window of the run before runs out
            say(f"[bulk send bench] {variant.name}: dry run and apply, waves "
                f"{variant.waves or 'all at once'} ...")
            run = send_change(
                reseller=reseller, partner=partner, numbers=numbers, variant=variant,
                set_={"businessInfo": {"mainBusinessDescription":
                                       DESCRIPTION.format(marker=f"bench-{index + 1}")}},
                marker=f"bench-{index + 1}", rate_limit=args.rate_limit, store=store,
                worker_pid=worker.pid, server_pid=services.processes["gunicorn"].pid,
                access_log=access_log,
                beat_alive=lambda: services.processes["beat"].poll() is None)
            say(f"[bulk send bench] {variant.name}: {run.state}, {run.answered:,} changes "
                f"answered in {run.wall_s:.1f} s (ideal {run.ideal_s:.1f} s), "
                f"{run.rate_limited} answered 429")
            figures.append(run)
    connections.close_all()
    return figures


def mirror_businesses(*, reseller, expected: int, timeout: float) -> int:
    """Mirror the account's tree with a sync run of the `businesses` resource, queued as the
    portal queues one; the number of locations mirrored."""
    from accounts.models import Business, SyncRun
    from portal.tenancy import tenant_scope
    from sync.services import sync_run_create
    from sync.tasks import sync_run_task

    with tenant_scope(reseller):
        run, _created = sync_run_create(tenant=reseller, actor=None, resources=["businesses"])
    sync_run_task.delay(reseller_id=reseller.pk, run_id=run.pk)
    deadline = time.monotonic() + timeout
    while True:
        time.sleep(0.25)
        run.refresh_from_db()
        if run.status in SyncRun.FINISHED:
            break
        if time.monotonic() > deadline:
            raise stack.StackError(f"the sync did not finish in {timeout:.0f} s "
                                   f"(status {run.status})")
    mirrored = Business.unscoped.filter(reseller=reseller, type=Business.Type.BUSINESS,
                                        removed_at__isnull=True).count()
    if run.status != SyncRun.Status.SUCCEEDED or mirrored != expected:
        raise stack.StackError(f"the sync {run.status} with {mirrored} of {expected} locations "
                               f"mirrored: {run.errors[:3]}")
    return mirrored


if __name__ == "__main__":
    sys.exit(main())


"""What bench/web.py and bench/sandbox.py share: their own PostgreSQL database and Redis,
Django set up with DEBUG off, the machine's description, timing statistics and the report.

The benches never touch the database of `DATABASE_URL`: each uses a database of its own
(created when missing, migrated on every run), so a developer's data is safe.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/portal_bench_web"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/4"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/5"


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object of the figures, last")
    parser.add_argument("--database-url",
                        default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL),
                        help="PostgreSQL database of the bench, created when missing "
                             "(default: $BENCH_DATABASE_URL or %(default)s)")
    parser.add_argument("--redis-url",
                        default=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL),
                        help="Redis cache (default: $BENCH_REDIS_URL or %(default)s)")
    parser.add_argument("--broker-url",
                        default=os.environ.get("BENCH_BROKER_URL", DEFAULT_BROKER_URL),
                        help="Celery broker; nothing is sent in a run (default: %(default)s)")


def server_environment(args: argparse.Namespace, **extra: str) -> dict[str, str]:
    """The environment of the bench process and of the gunicorn it starts: production-like
    (DEBUG off, no eager tasks) on the bench's own database and Redis."""
    env = dict(os.environ)
    env.update({
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "CELERY_BROKER_URL": args.broker_url,
        "DEBUG": "0",
        "DJANGO_ENV": "development",  # production would force HTTPS redirects on loopback
        "SANDBOX_ENABLED": "1",
        "LOG_LEVEL": "WARNING",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        # Keep-alive connections to the database, as a deployment would.
        "DB_CONN_MAX_AGE": "600",
    })
    env.update(extra)
    return env


def ensure_database(database_url: str) -> None:
    """Create the bench's database when it does not exist (through the server's `postgres`)."""
    import psycopg

    parts = urlsplit(database_url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        raise SystemExit(f"The bench needs PostgreSQL, not {parts.scheme}: {database_url}")
    name = parts.path.lstrip("/")
    admin_url = urlunsplit((
        "postgresql", parts.netloc, "/postgres", parts.query, ""))
    try:
        with psycopg.connect(admin_url, autocommit=True) as connection:
            exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                        [name]).fetchone()
            if not exists:
                connection.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as error:
        raise SystemExit(f"Cannot reach PostgreSQL at {parts.hostname}:{parts.port}: "
                         f"{error}") from error


def django_setup(args: argparse.Namespace, **extra_env: str) -> None:
    """Create and migrate the bench's database, then set Django up in this process."""
    ensure_database(args.database_url)
    os.environ.update(server_environment(args, **extra_env))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def machine() -> dict:
    """What the figures were taken on."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = cursor.fetchone()[0]
    memory_kb = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory_kb = int(line.split()[1])
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "memory_gb": round(memory_kb / 1024 / 1024),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "postgresql": postgres,
    }


def cpu_loop_ms(rounds: int = 5) -> float:
    """Milliseconds of a fixed pure-Python loop, the fastest of a few rounds: how fast this
    machine's CPU ran when the figures were taken. On a shared virtual machine it moves by tens
    of percent from one minute to the next, and every page's time moves with it; compare runs
    whose loop times are alike."""
    best = float("inf")
    for _ in range(rounds):
        began = time.perf_counter()
        total = 0
        for number in range(1_000_000):
            total += number * number
        best = min(best, time.perf_counter() - began)
    return round(best * 1000, 1)


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile (fraction in 0..1)."""
    ordered = sorted(samples)
    index = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[index]


def summary_ms(samples: list[float]) -> dict[str, float]:
    """Median and 95th percentile of durations in seconds, in milliseconds."""
    # The minimum is the figure least disturbed by other work on a shared machine.
    return {"median_ms": round(statistics.median(samples) * 1000, 1),
            "p95_ms": round(percentile(samples, 0.95) * 1000, 1),
            "min_ms": round(min(samples) * 1000, 1)}


@dataclass
class Check:
    """One figure against its target: `value <= limit` (or `>=` when `at_least`); a figure
    without a limit is reported for information."""

    name: str
    value: float
    limit: float | None
    unit: str
    at_least: bool = False

    @property
    def met(self) -> bool | None:
        if self.limit is None:
            return None
        return self.value >= self.limit if self.at_least else self.value <= self.limit

    def row(self) -> tuple[str, str, str, str]:
        if self.limit is None:
            return (self.name, f"{self.value:g} {self.unit}", "(no target)", "")
        sign = ">=" if self.at_least else "<="
        return (self.name, f"{self.value:g} {self.unit}", f"{sign} {self.limit:g} {self.unit}",
                "met" if self.met else "MISSED")


@dataclass
class Report:
    title: str
    checks: list[Check] = field(default_factory=list)
    figures: dict = field(default_factory=dict)

    def check(self, name: str, value: float, limit: float | None, unit: str,
              at_least: bool = False) -> None:
        self.checks.append(Check(name, value, limit, unit, at_least))

    @property
    def targets(self) -> list[Check]:
        return [check for check in self.checks if check.limit is not None]

    @property
    def all_met(self) -> bool:
        return all(check.met for check in self.targets)

    def as_json(self) -> dict:
        return {**self.figures,
                "targets": [{"name": c.name, "value": c.value, "limit": c.limit, "unit": c.unit,
                             "at_least": c.at_least, "met": c.met} for c in self.checks],
                "all_met": self.all_met}

    def print(self, as_json: bool) -> None:
        if as_json:
            print(json.dumps(self.as_json(), sort_keys=True))
            return
        rows = [("Figure", "Value", "Target", ""), *(check.row() for check in self.checks)]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        print(f"\n{self.title}")
        for number, row in enumerate(rows):
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
            if number == 0:
                print("  ".join("-" * width for width in widths))
        met = sum(bool(check.met) for check in self.targets)
        print(f"\n{met} of {len(self.targets)} targets met.")


def warn_if_busy() -> None:
    """Timings on a shared machine are only comparable when it is otherwise idle."""
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) * 0.75:
        log(f"Note: the load average is {load:.1f} on {os.cpu_count()} CPUs; other work on "
            "this machine inflates the figures. Record figures when it is idle.")


def log(message: str, *, quiet: bool = False) -> None:
    """Progress goes to stderr, so that --json leaves only the JSON object on stdout."""
    if not quiet:
        print(message, file=sys.stderr, flush=True)

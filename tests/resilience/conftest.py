"""Shared pieces of the resilience tests: the sandbox partner, real Celery workers that can be
killed, the comparison of the mirror with the sandbox, and the figures each test records.

Every test records what it measured with the `figures` fixture (changes queued and delivered,
duplicates, seconds, ...); the terminal summary lists them under "resilience figures".
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from accounts.models import Business
from listings.models import Answer, ListingSite, ListingStatusReport, Question
from media_app.models import MediaItem
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import ResellerFactory
from tests.live import join_live_server_requests

BASE_DIR = Path(__file__).resolve().parents[2]
FIGURES: list[dict] = []


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path  # a fresh file rate limiter per test
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    yield
    join_sandbox_requests()


def join_sandbox_requests(timeout: float = 10) -> None:
    """Wait for the live server's request threads: a request the client gave up on is still
    being served, and it must not outlive the test (nor share SQLite's connection with it)."""
    join_live_server_requests(timeout)


# -- figures ------------------------------------------------------------------------------------


@pytest.fixture
def figures(request):
    """A dict the test fills with what it measured; `seconds` is added at the end."""
    started = time.monotonic()
    row: dict = {}
    yield row
    if row:
        FIGURES.append({"test": request.node.name, **row,
                        "seconds": round(time.monotonic() - started, 1)})


def pytest_terminal_summary(terminalreporter):
    if not FIGURES:
        return
    terminalreporter.section("resilience figures")
    for row in FIGURES:
        details = "  ".join(f"{key}={value}" for key, value in row.items() if key != "test")
        terminalreporter.write_line(f"{row['test']}: {details}")


# -- the sandbox --------------------------------------------------------------------------------


@pytest.fixture
def partner_reseller(live_server):
    """`reseller, seeded = partner_reseller(key, locations=..., **faults)`: a seeded sandbox
    partner and a reseller that calls it over HTTP."""

    def make(key: str, *, locations: int = 3, **faults):
        seeded = seed_partner(api_key=key, locations=locations, seed=5, rate_limit=(5000, 1),
                              **faults)
        reseller = ResellerFactory(api_key=key, account_number=seeded["account_number"],
                                   provider_base_url=f"{live_server.url}/sandbox",
                                   rate_limit_count=5000, rate_limit_seconds=1)
        return reseller, seeded

    return make


def set_faults(reseller, **faults) -> None:
    """Change the sandbox partner's latency_ms / error_rate while the test runs."""
    sandbox.PartnerAccount.objects.filter(account_number=reseller.account_number).update(**faults)


def mirror_report(reseller) -> dict:
    """How the reseller's live mirror differs from what the sandbox holds: `missing` rows,
    `extra` rows (also rows mirrored twice), `orphans` (live rows of a removed business), and
    `problems` describing them (empty when the mirror is exact)."""
    account = sandbox.PartnerAccount.objects.get(account_number=reseller.account_number)
    tree = sandbox.Business.objects.filter(partner=account).exclude(number=account.account_number)
    expected = {
        "businesses": Counter(tree.values_list("number", flat=True)),
        "status_reports": Counter(tree.filter(type="Business").values_list("number", flat=True)),
        "listing_sites": Counter(sandbox.SiteStatus.objects.filter(partner=account)
                                 .values_list("location__number", "site_id")),
        "media": Counter(sandbox.MediaItem.objects.filter(partner=account)
                         .values_list("media_id", flat=True)),
        "questions": Counter(sandbox.Question.objects.filter(partner=account)
                             .values_list("question_id", flat=True)),
        "answers": Counter(sandbox.Answer.objects.filter(partner=account)
                           .values_list("answer_id", flat=True)),
    }
    live = {"removed_at__isnull": True}
    with tenant_scope(reseller):
        actual = {
            "businesses": Counter(Business.objects.filter(**live)
                                  .values_list("remote_id", flat=True)),
            "status_reports": Counter(ListingStatusReport.objects.filter(**live)
                                      .values_list("remote_id", flat=True)),
            "listing_sites": Counter(ListingSite.objects.filter(**live)
                                     .values_list("business__remote_id", "site_id")),
            "media": Counter(MediaItem.objects.filter(**live).values_list("remote_id", flat=True)),
            "questions": Counter(Question.objects.filter(**live)
                                 .values_list("remote_id", flat=True)),
            "answers": Counter(Answer.objects.filter(**live).values_list("remote_id", flat=True)),
        }
        orphans = {model.__name__: model.objects.filter(**live, business__removed_at__isnull=False)
                   .count() for model in (ListingStatusReport, ListingSite, MediaItem, Question)}
    report = {"missing": 0, "extra": 0, "orphans": sum(orphans.values()), "problems": []}
    for name, counts in expected.items():
        missing, extra = counts - actual[name], actual[name] - counts
        report["missing"] += sum(missing.values())
        report["extra"] += sum(extra.values())
        if missing or extra:
            report["problems"].append(
                f"{name}: {sum(missing.values())} missing {sorted(missing)[:3]}, "
                f"{sum(extra.values())} extra or twice {sorted(extra)[:3]}")
    report["problems"] += [f"{name}: {count} live rows of removed businesses"
                           for name, count in orphans.items() if count]
    return report


# -- waiting ------------------------------------------------------------------------------------


def wait_for(predicate, *, timeout: float, what: str, interval: float = 0.1):
    """Poll `predicate` until it returns something truthy. A query that meets a connection the
    database dropped closes it, so that the next poll connects again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except (OperationalError, InterfaceError):
            connection.close()
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"Timed out after {timeout:.0f}s waiting for {what}.")
        time.sleep(interval)


# -- real Celery workers --------------------------------------------------------------------------


def require_postgres_and_redis() -> None:
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and a Redis broker (DATABASE_URL, CELERY_BROKER_URL; as in "
                    "CI): a worker process cannot see the in-memory SQLite test database")


def test_database_url() -> str:
    db = connection.settings_dict
    credentials = quote(db["USER"] or "") + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"]
                                             else "")
    return (f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
            f"{quote(db['NAME'])}")


test_database_url.__test__ = False  # a helper, not a test


def broker_forget_everything() -> None:
    """Drop the messages other tests queued and left unconsumed, and those a killed worker of
    an earlier run left unacknowledged: ids from another test database must not reach ours."""
    import redis

    from portal.celery import app

    app.control.purge()
    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete("unacked", "unacked_index")


def broker_backlog() -> int:
    """Messages waiting in the default queue or delivered and not acknowledged yet."""
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    return client.llen("celery") + broker_unacknowledged()


def broker_unacknowledged() -> int:
    """Messages delivered to a worker that has not acknowledged them (yet)."""
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL).zcard("unacked_index")


class CeleryWorker:
    """`celery -A portal worker` in its own process group, on the test database and broker."""

    def __init__(self, name: str, env: dict[str, str], log_path: Path):
        self.name, self.env, self.log_path = name, env, log_path
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> CeleryWorker:
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "portal", "worker", "--pool", "prefork",
                 "--concurrency", "1", "--loglevel", "INFO", "--without-gossip",
                 "--without-mingle", "--without-heartbeat", "-n", f"{self.name}@%h"],
                cwd=BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)

        def ready():
            if self.process.poll() is not None:
                raise AssertionError(f"worker {self.name} exited:\n{self.log_tail()}")
            return b" ready." in self.log_path.read_bytes()[offset:]

        wait_for(ready, timeout=timeout, what=f"worker {self.name} to start")
        return self

    def kill(self) -> None:
        """SIGKILL the worker and its pool child at once: nothing is acknowledged or undone."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def received_twice(self) -> int:
        """Tasks that workers of this test received more than once (a redelivery, or a retry)."""
        ids = re.findall(r"Task \S+\[([0-9a-f-]+)\] received", self.log_path.read_text())
        return sum(1 for count in Counter(ids).values() if count > 1)

    def log_tail(self, lines: int = 40) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


@pytest.fixture
def celery_worker(transactional_db, tmp_path, settings):
    """`celery_worker(name, **env)` starts a worker; every worker is killed at the end (before
    the database is flushed)."""
    require_postgres_and_redis()
    broker_forget_everything()
    started: list[CeleryWorker] = []
    base_env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.resilience.worker_settings",
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "REDIS_URL": settings.REDIS_URL,
        "API_KEY_ENCRYPTION_KEYS": ",".join(settings.API_KEY_ENCRYPTION_KEYS),
        "DATA_DIR": str(tmp_path),
        "SYNC_CHUNK_SIZE": "3",
        "SYNC_FETCH_THREADS": "2",
        "PROVIDER_BACKOFF_BASE_SECONDS": "0.05",
        "OUTBOX_SENDING_STALE_SECONDS": "2",
        # A request still on its way 4 s after it left (the tests' latency is below): read back.
        "OUTBOX_IN_FLIGHT_SECONDS": "4",
        # A killed worker's step, silent for 3 s, is taken up by the message the broker hands
        # out again (no beat runs here: its sweep would take it up as well).
        "SYNC_STEP_STALE_SECONDS": "3",
        "SYNC_HEARTBEAT_SECONDS": "0.5",
        "PYTHONUNBUFFERED": "1",
    }

    def start(name: str, **env: str) -> CeleryWorker:
        worker = CeleryWorker(name, {**base_env, **env}, tmp_path / "worker.log")
        started.append(worker)
        return worker.start()

    yield start
    for worker in started:
        worker.kill()
    broker_forget_everything()
    join_sandbox_requests()

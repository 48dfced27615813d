"""The fault suite: the portal as production runs it, broken on purpose, and counted at the
provider.

Its own stack, on servers of its own (never the machine's shared ones): a PostgreSQL cluster
for the portal (restarted on purpose) and another for the provider, a redis-server (cache and
broker; restarted on purpose, and it keeps nothing on disk, so every queued message is lost),
the provider (the sandbox, with latency and a rate limit per key) and the portal each served by
gunicorn, two Celery worker processes and beat. Through the API it runs a sync and a few hundred
listing changes while, in rounds chosen by a fixed seed, it kills a worker with SIGKILL (its
pool processes with it: nothing is acknowledged or undone), restarts Redis and restarts the
portal's PostgreSQL. Then it counts at the provider:

- every change accepted exactly once, or shown in doubt (and then held once at most): none lost
  (accepted but missing at the provider), none sent twice;
- no run left running, and never two runs over one resource at once; the sync finished within
  a minute of the last fault;
- after a clean sync, the mirror equal to what the provider holds, row for row;
- the provider's requests beyond a clean sync's within what the steps in flight when the
  workers died would fetch again;
- no API answer was a 500.

Its figures are printed at the end of the run ("resilience figures") and recorded in
docs/resilience.md.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from tests.servers import PostgresServer, RedisServer, free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SEED = 26
ROUNDS = 3
LOCATIONS = 240
CHANGES = 200
RATE_LIMIT = 50  # requests a second for the key, at the provider and in the portal
LATENCY_MS = 30
CHUNK_SIZE = 20
CONCURRENCY = 2  # pool processes of each of the two workers
KEY = "fault-suite-provider-key-0026"
ACCESS_LOG_FORMAT = '%(m)s %(U)s %(s)s'

pytestmark = pytest.mark.slow


def _can_run() -> str | None:
    if shutil.which("redis-server") is None:
        return "redis-server is not installed"
    try:
        PostgresServer._binaries()
    except RuntimeError as exc:
        return str(exc)
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "runuser is needed to run PostgreSQL as its own user"
    return None


@dataclass
class Stack:
    """The processes of the run, each in a session of its own, stopped together."""

    directory: Path
    env: dict[str, str]
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def start(self, name: str, command: list[str], **env: str) -> subprocess.Popen:
        with open(self.directory / f"{name}.log", "ab") as log:
            process = subprocess.Popen(command, cwd=ROOT, env={**self.env, **env}, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.processes[name] = process
        return process

    def kill(self, name: str) -> None:
        """SIGKILL the process and its children (a worker's pool processes) at once."""
        process = self.processes[name]
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def stop_all(self) -> None:
        for name in reversed(list(self.processes)):
            self.kill(name)

    def log(self, name: str, lines: int = 40) -> str:
        path = self.directory / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def driver(env: dict[str, str], command: str, **options) -> dict:
    """Run a fault_driver command against the database `env` names; its JSON answer."""
    done = subprocess.run([sys.executable, "-m", "tests.resilience.fault_driver", command,
                           json.dumps(options)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    if done.returncode:
        raise AssertionError(f"fault_driver {command} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def migrate(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own loopback
            return True
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


class Api:
    """The agency's software: the portal's REST API with the owner's token; every answer's
    status is kept (none may be a 500)."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token
        self.statuses: Counter[int] = Counter()
        self.lock = threading.Lock()

    def call(self, method: str, path: str, body: dict | None = None, *,
             key: str | None = None) -> tuple[int, dict]:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        if key:
            headers["Idempotency-Key"] = key
        request = urllib.request.Request(self.base + path, method=method, headers=headers,
                                         data=json.dumps(body).encode() if body else None)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            status, payload = 0, b""  # no answer at all (a server between two lives)
        with self.lock:
            self.statuses[status] += 1
        try:
            return status, json.loads(payload) if payload else {}
        except ValueError:
            return status, {}

    def until_done(self, method: str, path: str, body: dict | None = None, *,
                   key: str | None = None, timeout: float = 120) -> tuple[int, dict]:
        """Send again while the portal cannot answer (503, or no answer); the same
        Idempotency-Key makes a retried create harmless."""
        deadline = time.monotonic() + timeout
        while True:
            status, payload = self.call(method, path, body, key=key)
            if status not in (0, 502, 503) or time.monotonic() > deadline:
                return status, payload
            time.sleep(0.5)


def overlapping(runs: list[dict]) -> list[tuple[int, int]]:
    """Pairs of runs over a shared resource whose times overlapped."""
    pairs = []
    for i, first in enumerate(runs):
        for second in runs[i + 1:]:
            if not set(first["resources"]) & set(second["resources"]):
                continue
            end = first["finished_at"] or time.time()
            if second["started_at"] and first["started_at"] and (
                    first["started_at"] < (second["finished_at"] or time.time())
                    and second["started_at"] < end):
                pairs.append((first["id"], second["id"]))
    return pairs


SYNC_PATHS = re.compile(r"^(GET|POST) /sandbox/v\d/(business/child/all|listing/status/location|"
                        r"business/\d+/media/get|qna/get|review/|competitors/|survey/|"
                        r"listing/searchAi/)")


def provider_requests(access_log: Path, since: int) -> tuple[Counter, int]:
    """The provider's requests logged after line `since`, by kind; and the line count."""
    lines = access_log.read_text().splitlines() if access_log.exists() else []
    kinds: Counter[str] = Counter()
    for line in lines[since:]:
        parts = line.split()
        if len(parts) < 3:
            continue
        if parts[2] == "429":
            kinds["429"] += 1
        elif SYNC_PATHS.match(line):
            kinds["sync"] += 1
        elif "/listing/" in parts[1] and parts[1].endswith("/create"):
            kinds["create"] += 1
        else:
            kinds["other"] += 1
    return kinds, len(lines)


@pytest.mark.skipif(bool(_can_run()), reason=_can_run() or "")
def test_nothing_is_lost_or_sent_twice_under_killed_workers_and_restarted_servers(
        tmp_path, figures):
    rng = random.Random(SEED)
    portal_db = PostgresServer().start()
    provider_db = PostgresServer().start()
    redis_server = RedisServer(tmp_path).start()
    portal_db.create_database("portal")
    provider_db.create_database("provider")
    provider_port, portal_port = free_port(), free_port()
    common = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "portal.settings", "DJANGO_ENV": "development",
        "DEBUG": "0", "ENV_FILE": str(tmp_path / "no.env"), "DATA_DIR": str(tmp_path),
        "SECRET_KEY": secrets.token_urlsafe(40), "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "API_KEY_ENCRYPTION_KEYS": Fernet.generate_key().decode(), "SANDBOX_ENABLED": "1",
        "PROVIDER_ALLOW_PRIVATE_HOSTS": "1", "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1",
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    provider_env = {**common, "DATABASE_URL": provider_db.url("provider"),
                    "CELERY_BROKER_URL": "", "REDIS_URL": ""}
    portal_env = {
        **common, "DATABASE_URL": portal_db.url("portal"),
        "REDIS_URL": f"{redis_server.url}/0", "CELERY_BROKER_URL": f"{redis_server.url}/1",
        "DB_CONN_MAX_AGE": "60", "SYNC_CHUNK_SIZE": str(CHUNK_SIZE), "SYNC_FETCH_THREADS": "2",
        "PROVIDER_CONNECT_TIMEOUT": "1", "PROVIDER_READ_TIMEOUT": "4",
        "OUTBOX_SWEEP_SECONDS": "2", "OUTBOX_SENDING_STALE_SECONDS": "6",
        "OUTBOX_IN_FLIGHT_SECONDS": "6", "OUTBOX_REQUEUE_SECONDS": "10",
        "OUTBOX_RETRY_BASE_SECONDS": "1", "OUTBOX_PROVIDER_CLOCK_SKEW_SECONDS": "1",
        "SYNC_SWEEP_SECONDS": "2", "SYNC_HEARTBEAT_SECONDS": "1",
        "SYNC_STEP_STALE_SECONDS": "6", "SYNC_STEP_LOST_SECONDS": "6",
        "PROVIDER_RATE_LIMIT_PROCESSES": "6",
        # Recovery must not wait for the broker to hand a dead worker's message out again.
        "CELERY_VISIBILITY_TIMEOUT_SECONDS": "3600",
        "SYNC_STATUS_REFRESH_MINUTES": "600", "REPORTS_DUE_SECONDS": "3600",
    }
    stack = Stack(tmp_path, portal_env)
    access_log = tmp_path / "provider-access.log"
    try:
        migrations = [migrate(provider_env), migrate(portal_env)]
        for process in migrations:
            out, _ = process.communicate(timeout=600)
            assert process.returncode == 0, out.decode()[-3000:]
        seeded = driver(provider_env, "seed", key=KEY, locations=LOCATIONS,
                        rate_limit=RATE_LIMIT, latency_ms=LATENCY_MS)
        base_url = f"http://127.0.0.1:{provider_port}/sandbox"
        agency = driver(portal_env, "setup", key=KEY, account_number=seeded["account_number"],
                        base_url=base_url, rate_limit=RATE_LIMIT)

        gunicorn = [str(BIN / "gunicorn"), "portal.wsgi", "--worker-class", "gthread",
                    "--log-level", "warning"]
        stack.env = provider_env
        stack.start("provider", [*gunicorn, "--bind", f"127.0.0.1:{provider_port}",
                                 "--workers", "2", "--threads", "16",
                                 "--access-logfile", str(access_log),
                                 "--access-logformat", ACCESS_LOG_FORMAT])
        stack.env = portal_env
        stack.start("web", [*gunicorn, "--bind", f"127.0.0.1:{portal_port}", "--workers", "2",
                            "--threads", "8"])
        worker = [str(BIN / "celery"), "-A", "portal", "worker", "--pool", "prefork",
                  "--concurrency", str(CONCURRENCY), "--loglevel", "WARNING",
                  "--without-gossip", "--without-mingle", "--without-heartbeat"]
        for name in ("worker-a", "worker-b"):
            stack.start(name, [*worker, "-n", f"{name}@%h"])
        stack.start("beat", [str(BIN / "celery"), "-A", "portal", "beat", "--loglevel",
                             "WARNING", "--schedule", str(tmp_path / "beat-schedule")])
        wait_until(lambda: answers(f"{base_url}/openapi.json"), timeout=60,
                   what="the provider to answer")
        wait_until(lambda: answers(f"http://127.0.0.1:{portal_port}/accounts/login/"),
                   timeout=60, what="the portal to answer")
        api = Api(f"http://127.0.0.1:{portal_port}/api/v1/t/{agency['slug']}", agency["token"])

        def finished(run_id: int) -> dict | None:
            status, run = api.call("GET", f"/sync-runs/{run_id}/")
            return run if status == 200 and run.get("status") in (
                "succeeded", "partial", "failed") else None

        # The tree first, without faults: the changes are made to mirrored locations.
        status, walk = api.until_done("POST", "/sync-runs/", {"resources": ["businesses"]})
        assert status == 202, walk
        walked = wait_until(lambda: finished(walk["id"]), timeout=120, what="the tree walk")
        assert walked["status"] == "succeeded", walked

        # -- under faults: a sync of everything and the changes, side by side -------------------
        started = time.monotonic()
        log_mark = provider_requests(access_log, 0)[1]
        status, run = api.until_done("POST", "/sync-runs/", {})
        assert status == 202, run
        numbers = rng.sample(seeded["location_numbers"], CHANGES)
        names = {number: f"Fault Suite Location {number} r{SEED}" for number in numbers}

        def submit_all() -> None:
            for number in numbers:
                api.until_done("POST", f"/businesses/{number}/listing/submissions/",
                               {"businessInfo": {"name": names[number]}},
                               key=f"fault-{SEED}-{number}")

        submitter = threading.Thread(target=submit_all)
        submitter.start()

        faults: list[str] = []
        for round_number in range(1, ROUNDS + 1):
            time.sleep(rng.uniform(2.0, 5.0))
            victim = rng.choice(["worker-a", "worker-b"])
            stack.kill(victim)
            faults.append(f"round {round_number}: SIGKILL {victim} at "
                          f"{time.monotonic() - started:.1f} s")
            if round_number == 2:
                redis_server.restart(down_for=3.0)
                faults.append(f"round 2: Redis restarted (3 s down) at "
                              f"{time.monotonic() - started:.1f} s")
            if round_number == 3:
                portal_db.restart(down_for=2.0)
                faults.append(f"round 3: PostgreSQL restarted (2 s down) at "
                              f"{time.monotonic() - started:.1f} s")
            time.sleep(rng.uniform(0.5, 2.0))
            stack.start(victim, [*worker, "-n", f"{victim}@%h"])
        last_fault = time.monotonic()
        submitter.join(timeout=300)
        assert not submitter.is_alive(), "the changes could not all be submitted"

        def diagnosis() -> str:
            return (json.dumps(driver(portal_env, "steps"), default=str, indent=1)[-6000:]
                    + "".join(f"\n--- {name}\n{stack.log(name, 15)}" for name in stack.processes))

        try:
            ended = wait_until(lambda: finished(run["id"]), timeout=240, what="the sync to end")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{diagnosis()}") from None
        sync_ended_after_fault = time.monotonic() - last_fault

        def settled() -> dict | None:
            state = driver(portal_env, "portal")
            open_rows = [c for c in state["changes"] if c["state"] in ("pending", "sending")]
            return None if open_rows else state

        portal_state = wait_until(settled, timeout=240, interval=2,
                                  what="every change to be answered")
        faulted, log_mark = provider_requests(access_log, log_mark)

        # -- a clean sync, and the counts ----------------------------------------------------
        status, clean = api.until_done("POST", "/sync-runs/", {})
        assert status == 202, clean
        cleaned = wait_until(lambda: finished(clean["id"]), timeout=240, what="the clean sync")
        assert cleaned["status"] == "succeeded", cleaned
        clean_requests, _ = provider_requests(access_log, log_mark)
        portal_state = driver(portal_env, "portal")
        provider_state = driver(provider_env, "provider", account_number=seeded["account_number"])
    finally:
        stack.stop_all()
        redis_server.stop()
        portal_db.remove()
        provider_db.remove()

    held = Counter()
    for number, body in provider_state["submissions"]:
        sent_name = (json.loads(body).get("businessInfo") or {}).get("name")
        held[(number, sent_name)] += 1
    changes = [c for c in portal_state["changes"] if c["name"] in names.values()]
    states = Counter(change["state"] for change in changes)
    delivered = {change["id"]: held[(change["number"], change["name"])] for change in changes}
    lost = [c for c in changes if c["state"] == "accepted" and delivered[c["id"]] == 0]
    twice = [c for c in changes if delivered[c["id"]] > 1]
    unsettled = [c for c in changes if c["state"] not in ("accepted", "in_doubt")]

    assert len(changes) == CHANGES  # every submission was stored once (the Idempotency-Key)
    assert lost == [], f"accepted but not at the provider: {lost[:5]}"
    assert twice == [], f"sent twice: {twice[:5]}"
    assert unsettled == [], f"neither accepted nor in doubt: {unsettled[:5]}"
    assert api.statuses[500] == 0, dict(api.statuses)
    assert ended["status"] in ("succeeded", "partial"), ended
    assert (ended["done"] + ended["failed"]) == ended["total"], ended
    assert sync_ended_after_fault < 60, sync_ended_after_fault
    runs = portal_state["runs"]
    assert not [r for r in runs if r["status"] in ("queued", "running")]
    assert overlapping(runs) == []
    assert portal_state["mirror"] == provider_state["mirror"]
    # What the steps in flight when a worker died fetch again: every pool process of the
    # killed worker on a chunk, each location's status, media and Q&A; and the walk.
    extra = faulted["sync"] - clean_requests["sync"]
    in_flight_bound = ROUNDS * CONCURRENCY * CHUNK_SIZE * 3 + 2 * len(
        provider_state["mirror"]["businesses"])
    assert extra <= in_flight_bound, (extra, in_flight_bound)

    figures.update(seed=SEED, rounds=ROUNDS, faults="; ".join(faults), changes=len(changes),
                   accepted=states["accepted"], in_doubt=states["in_doubt"],
                   duplicates=len(twice), losses=len(lost),
                   in_doubt_held=sum(delivered[c["id"]] for c in changes
                                     if c["state"] == "in_doubt"),
                   sync=ended["status"],
                   sync_ended_after_last_fault_s=round(sync_ended_after_fault, 1),
                   extra_requests=extra, clean_sync_requests=clean_requests["sync"],
                   answers_429=faulted["429"], api_statuses=dict(sorted(api.statuses.items())))

"""What a sync benchmark runs against: its own PostgreSQL database and Redis databases, gunicorn
serving the portal (and the sandbox in it) on loopback, and Celery worker processes.

Every process is started in a session of its own and stopped by its process group when the
bench ends, fails or is interrupted (Ctrl-C, SIGTERM), so that no server outlives a run.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


class StackError(RuntimeError):
    """A service of the bench did not start or a precondition is not met."""


def bench_environment(*, database_url: str, redis_url: str, broker_url: str,
                      data_dir: Path) -> dict[str, str]:
    """The environment of the bench and of every process it starts: DEBUG off, a fresh
    encryption key and secret key, nothing read from a developer's `.env`."""
    env = dict(os.environ)
    env.update({
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "ENV_FILE": str(data_dir / "no-such.env"),
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": broker_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "API_KEY_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DEBUG": "0",
        "DJANGO_ENV": "development",  # production would redirect loopback HTTP to HTTPS
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SANDBOX_ENABLED": "1",
        "PROVIDER_ALLOW_PRIVATE_HOSTS": "1",  # the sandbox is on loopback
        "DB_CONN_MAX_AGE": "600",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    })
    return env


def database_recreate(database_url: str) -> None:
    """Drop and create the bench's database, so that every run mirrors into empty tables.

    Refuses any database whose name does not say it is a bench's, so that a mistyped URL cannot
    drop real data."""
    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    if "bench" not in name:
        raise StackError(f"Refusing to drop database {name!r}: its name must contain 'bench'.")
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    try:
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        raise StackError(f"PostgreSQL is not reachable at {parts.hostname}:{parts.port}: "
                         f"{exc}") from exc


def redis_flush(url: str) -> redis.Redis:
    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    except redis.ConnectionError as exc:
        raise StackError(f"Redis is not reachable at {url}: {exc}") from exc
    return client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_versions(database_url: str, redis_url: str) -> dict[str, str]:
    with psycopg.connect(database_url) as conn:
        postgres = conn.execute("SHOW server_version").fetchone()[0]
    info = redis.Redis.from_url(redis_url).info("server")
    return {"postgresql": postgres.split()[0], "redis": str(info.get("redis_version"))}


class Services:
    """The processes of one run; a context manager that stops them all on the way out."""

    def __init__(self, *, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.processes: dict[str, subprocess.Popen] = {}
        self._previous_handlers: dict[int, object] = {}

    def __enter__(self) -> Services:
        # SIGTERM unwinds like Ctrl-C does, through __exit__.
        self._previous_handlers[signal.SIGTERM] = signal.signal(signal.SIGTERM, _raise_exit)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for name in reversed(list(self.processes)):
            self.stop(name)
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)

    def start(self, name: str, command: list[str],
              env_overrides: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.log_dir / f"{name}.log", "ab")
        env = {**self.env, **(env_overrides or {})}
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log,  # noqa: S603 - ours
                                   stderr=subprocess.STDOUT, start_new_session=True)
        log.close()  # the child holds its own descriptor
        self.processes[name] = process
        return process

    def stop(self, name: str, timeout: float = 20.0) -> None:
        process = self.processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait()

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.log_dir / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def start_gunicorn(self, *, port: int, workers: int, threads: int) -> None:
        """The portal under gunicorn, threaded workers so that the sandbox's added latency
        (a sleep) does not hold a whole process.

        The sandbox plays the provider, so the webhook deliveries it queues are the provider's
        work: they go to a filesystem broker under the run's data directory that nothing
        consumes, instead of taking the sync's workers and queries."""
        self.start("gunicorn", [
            str(BIN / "gunicorn"), "portal.wsgi", "--bind", f"127.0.0.1:{port}",
            "--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads),
            "--backlog", "256", "--log-level", "warning",
        ], env_overrides={"CELERY_BROKER_URL": ""})
        url = f"http://127.0.0.1:{port}/sandbox/openapi.json"
        deadline = time.monotonic() + 60
        while True:
            self._check_alive("gunicorn")
            try:
                with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own loopback
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise StackError(f"gunicorn did not answer at {url}:\n"
                                     f"{self.log_tail('gunicorn')}") from exc
                time.sleep(0.3)

    def start_workers(self, *, concurrency: int, store: redis.Redis) -> subprocess.Popen:
        from bench._sync_worker import READY_KEY

        store.delete(READY_KEY)
        process = self.start("celery", [
            str(BIN / "celery"), "-A", "bench._sync_worker", "worker",
            "--pool", "prefork", "--concurrency", str(concurrency), "--loglevel", "WARNING",
            "--hostname", f"bench-sync-{os.getpid()}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
        ])
        deadline = time.monotonic() + 60
        while not store.get(READY_KEY):
            self._check_alive("celery")
            if time.monotonic() > deadline:
                raise StackError(f"the Celery worker did not start:\n{self.log_tail('celery')}")
            time.sleep(0.2)
        return process

    def _check_alive(self, name: str) -> None:
        process = self.processes[name]
        if process.poll() is not None:
            raise StackError(f"{name} exited with {process.returncode}:\n{self.log_tail(name)}")


def worker_children(pid: int) -> list[int]:
    """The pool processes of a Celery worker (the children of its main process)."""
    children: list[int] = []
    for task_dir in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(c) for c in (task_dir / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return sorted(set(children))


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory (VmHWM) in MiB, or None when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far, or 0 when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)  # the group the process leads (start_new_session)
    except ProcessLookupError:
        pass


def _raise_exit(signum, _frame) -> None:
    raise SystemExit(128 + signum)

"""Servers a test starts for itself, so that it can stop and restart them: never the shared
PostgreSQL and Redis of the machine."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(predicate, *, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class RedisServer:
    """A redis-server of the test's own, on a free port; `stop()` and `start()` again."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory), "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: _answers(self.port), timeout=10, what="redis-server to start")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        wait_until(lambda: not _answers(self.port), timeout=10, what="redis-server to stop")

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()


class PostgresServer:
    """A PostgreSQL cluster of the test's own (initdb in a temporary folder), on a free port,
    run as the `postgres` user; `restart()` drops every connection, as a real restart does."""

    def __init__(self) -> None:
        self.port = free_port()
        # Its own folder under /tmp: a test's tmp_path is private to root, and PostgreSQL runs
        # as its own user.
        self.directory = Path(tempfile.mkdtemp(prefix="portal-test-pg-"))
        self.directory.chmod(0o755)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        self.bin = self._binaries()

    @staticmethod
    def _binaries() -> Path:
        root = Path("/usr/lib/postgresql")
        versions = sorted(root.iterdir(), key=lambda p: int(p.name)) if root.exists() else []
        if not versions:
            raise RuntimeError("PostgreSQL's server binaries are not installed")
        return versions[-1] / "bin"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.directory)
        if check and done.returncode:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        return done

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> PostgresServer:
        data = self.directory / "data"
        if not data.exists():
            self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust",
                      "--no-sync", "-E", "UTF8")
        self._run("pg_ctl", "-D", str(data), "-l", str(self.directory / "log"), "-w",
                  "-o", f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 "
                        "-c fsync=off -c max_connections=200", "start")
        return self

    def stop(self, mode: str = "immediate") -> None:
        self._run("pg_ctl", "-D", str(self.directory / "data"), "-m", mode, "-w", "stop",
                  check=False)

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def create_database(self, name: str) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)

"""Requests per second over loopback: the portal served by gunicorn, and a load generator of
threads that each keep one HTTP/1.1 connection alive, as a client library or a reverse proxy
would."""

from __future__ import annotations

import http.client
import itertools
import os
import signal
import socket
import statistics
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from _web_env import ROOT, percentile


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def gunicorn(env: dict[str, str], *, workers: int, threads: int, ready_path: str):
    """Serve the portal on a free loopback port for the duration of the block; yields the
    port. Only the gunicorn started here is stopped."""
    port = free_port()
    binary = ROOT / ".venv" / "bin" / "gunicorn"
    command = [str(binary if binary.exists() else "gunicorn"), "portal.wsgi",
               "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
               "--threads", str(threads), "--worker-class", "gthread",
               "--keep-alive", "30", "--backlog", "512", "--log-level", "warning",
               "--graceful-timeout", "5"]
    server = subprocess.Popen(command, cwd=ROOT, env=env,  # noqa: S603 - our own command line
                              stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {server.returncode}")
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", ready_path)
                connection.getresponse().read()
                connection.close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("gunicorn did not answer within 60 s") from None
                time.sleep(0.2)
        yield port
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class LoadResult:
    requests: int
    errors: int
    seconds: float
    latencies: list[float]
    statuses: dict[int, int]
    body_bytes: int = 0

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict:
        ordered = self.latencies or [0.0]
        return {"requests_per_second": round(self.per_second, 1), "requests": self.requests,
                "errors": self.errors, "seconds": round(self.seconds, 1),
                "latency_median_ms": round(statistics.median(ordered) * 1000, 1),
                "latency_p95_ms": round(percentile(ordered, 0.95) * 1000, 1),
                "mean_response_bytes": round(self.body_bytes / self.requests) if self.requests
                else 0,
                "statuses": {str(k): v for k, v in sorted(self.statuses.items())}}


def load(port: int, requests: list[Request], *, concurrency: int, seconds: float,
         warmup_seconds: float = 2.0, expect: tuple[int, ...] = (200,)) -> LoadResult:
    """Send `requests` (round-robin, each thread starting at its own offset) from
    `concurrency` threads for `warmup_seconds` (not counted) then `seconds`; an answer whose
    status is not in `expect` counts as an error."""
    start_at = time.monotonic() + warmup_seconds
    stop_at = start_at + seconds
    lock = threading.Lock()
    totals = {"requests": 0, "errors": 0, "bytes": 0}
    statuses: dict[int, int] = {}
    latencies: list[float] = []

    def worker(offset: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[float] = []
        done = errors = received = 0
        seen: dict[int, int] = {}
        cycle = itertools.islice(itertools.cycle(requests), offset, None)
        for request in cycle:
            began = time.monotonic()
            if began >= stop_at:
                break
            try:
                connection.request(request.method, request.path, body=request.body,
                                   headers=request.headers)
                response = connection.getresponse()
                size = len(response.read())
                status = response.status
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                status, size = 0, 0
            ended = time.monotonic()
            if began >= start_at and ended <= stop_at:
                done += 1
                received += size
                mine.append(ended - began)
                seen[status] = seen.get(status, 0) + 1
                if status not in expect:
                    errors += 1
        connection.close()
        with lock:
            totals["requests"] += done
            totals["errors"] += errors
            totals["bytes"] += received
            latencies.extend(mine)
            for status, count in seen.items():
                statuses[status] = statuses.get(status, 0) + count

    threads = [threading.Thread(target=worker, args=(n * 7,), daemon=True)
               for n in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return LoadResult(requests=totals["requests"], errors=totals["errors"], seconds=seconds,
                      latencies=latencies, statuses=statuses, body_bytes=totals["bytes"])

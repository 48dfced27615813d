"""`make demo` as a new user meets it: on a free port with a fresh data folder, the login is
printed as soon as the portal answers, the terminal stays short and free of warnings nobody
explains, and Ctrl-C (SIGINT to the whole foreground process group, as a terminal sends it)
stops every process it started and frees the port."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from demo.management.commands.demo_setup import DEMO_EMAIL, DEMO_PASSWORD

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# What the terminal showed before: warnings nobody explained, tracebacks, the sandbox's access
# log, make's report of a crashed child.
NOISE = re.compile(r"Traceback|models\.W040|non-key|No hostname was supplied|superuser"
                   r"|Segmentation|WARNING|Error|\"(GET|POST) /|celery@|Starting development")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def process_table() -> dict[int, tuple[int, str]]:
    """pid: (parent pid, state) of every process."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def descendants(root: int) -> set[int]:
    table = process_table()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    table = process_table()
    return {pid for pid in pids if pid in table and table[pid][1] != "Z"}


class Output:
    """The demo's terminal, read as it comes."""

    def __init__(self, stream):
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self.read, args=(stream,), daemon=True)
        self.reader.start()

    def read(self, stream):
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, pattern: str, timeout: float, process: subprocess.Popen) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text):
            assert process.poll() is None, f"the demo ended early:\n{self.text}"
            assert time.monotonic() < deadline, f"no {pattern!r} in time:\n{self.text}"
            time.sleep(0.2)


@pytest.fixture
def demo_environment(tmp_path):
    env = {name: value for name, value in os.environ.items()
           if name not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "DATABASE_URL", "REDIS_URL",
                           "CELERY_BROKER_URL", "API_KEY_ENCRYPTION_KEYS", "DJANGO_ENV",
                           "LOG_LEVEL", "ACCESS_LOG", "DEBUG"}}
    # A fresh clone's defaults (SQLite, the file broker), in a data folder of its own.
    env.update(DATA_DIR=str(tmp_path / "data"), ENV_FILE=str(tmp_path / ".env"))
    return env


def test_make_demo_prints_the_login_when_ready_stays_quiet_and_stops_on_ctrl_c(
        demo_environment):
    port = free_port()
    # `-o setup`: the virtualenv is there; the test must not reinstall it.
    make = subprocess.Popen(
        ["make", "--no-print-directory", "-o", "setup", "demo", f"PORT={port}",
         "DEMO_LOCATIONS=12"],
        cwd=ROOT, env=demo_environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)
    output = Output(make.stdout)
    try:
        output.wait_for(re.escape(DEMO_PASSWORD), timeout=180, process=make)
        # Printed once the portal answers, not after the first sync.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/",
                                    timeout=10) as page:
            assert page.status == 200
        assert DEMO_EMAIL in output.text
        output.wait_for(r"First sync (done|finished)", timeout=180, process=make)
        time.sleep(10)  # the worker's schedule ticks and the sandbox's events arrive meanwhile
        started = descendants(make.pid)
        assert len(started) >= 4  # the demo, its web server, its worker and the worker's pool

        os.killpg(make.pid, signal.SIGINT)
        make.wait(timeout=60)
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
    output.reader.join(timeout=10)
    text = output.text
    assert make.returncode in (0, 130, -signal.SIGINT), text
    assert not alive(started), (alive(started), text)
    assert port_is_free(port)
    assert "The demo has stopped." in text
    # Short: the login, the two sync lines and the stop, nothing per request or per tick.
    assert len(output.lines) <= 15, text
    assert not NOISE.search(text), text
    # Said again, briefly, when the first sync ends.
    assert text.count(DEMO_PASSWORD) == 2

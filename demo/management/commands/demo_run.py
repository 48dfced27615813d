"""`manage.py demo_run`: the whole demo in one foreground process, as `make demo` runs it.

It prepares the database and the demo data, starts the web server and a Celery worker (with the
schedule) as child processes, prints the login as soon as the portal answers, runs the first
sync, and stops everything on Ctrl-C.

Each child runs in a process group of its own, so that the terminal's Ctrl-C reaches this
process alone and the children are stopped in order, each the way it stops cleanly: SIGTERM to
the worker's main process (a warm shutdown that stops its pool and its scheduler), to the web
server and to the first sync; whatever is still there after a grace period is killed with its
whole group. A second Ctrl-C kills at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from demo.management.commands.demo_setup import DEMO_EMAIL, DEMO_PASSWORD

GRACE_SECONDS = 15
POLL_SECONDS = 0.2
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    # Children live in groups of their own, out of reach of the terminal's signals: should this
    # process be killed outright (SIGKILL), the kernel stops them instead of leaving them.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class Stop(Exception):
    """Ctrl-C (SIGINT), SIGTERM or SIGHUP: stop the demo."""


class Command(BaseCommand):
    help = ("Run the demo in the foreground: prepare the data, start the web server and a "
            "worker, print the login, run the first sync; Ctrl-C stops everything.")
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--locations", type=int, default=300,
                            help="Locations of the demo account, when it is first seeded.")
        parser.add_argument("--timeout", type=float, default=90.0,
                            help="Seconds to wait for the web server to answer.")

    def handle(self, *args, **options):
        self.port = options["port"]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.children: dict[str, subprocess.Popen] = {}
        self.stopping = False
        self.env = self.child_environment()
        if not self.port_is_free():
            raise CommandError(f"Port {self.port} is in use. Stop what uses it, or choose "
                               f"another: PORT={self.port + 1} make demo")
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self.on_signal)
        status = 0
        try:
            status = self.run(options)
        except Stop:
            pass
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, signal.SIG_IGN)  # the stop itself is not interrupted
            self.stop_children()
        self.stdout.write("The demo has stopped.")
        if status:
            sys.exit(status)

    # -- the steps ---------------------------------------------------------------------------

    def run(self, options) -> int:
        self.say("Preparing the demo: the database, and the sandbox's demo account "
                 f"({options['locations']} locations, the first time only)...")
        self.run_to_end("migrate", ["migrate", "--no-input", "--verbosity", "0"])
        self.run_to_end("demo setup", ["demo_setup", "--port", str(self.port),
                                       "--locations", str(options["locations"])],
                        stdout=subprocess.DEVNULL)
        self.say("Starting the web server and the worker...")
        # The worker's banner and its shutdown notes go to standard output; its warnings and
        # errors to standard error, which stays on the terminal.
        self.start("worker", [sys.executable, "-W", f"ignore:{ROOT_WARNING}", "-m", "celery",
                              "-A", "portal", "--quiet", "worker", "--beat",
                              "--loglevel", "WARNING", "--concurrency", "2"],
                   stdout=subprocess.DEVNULL)
        # Its banner ("Starting development server ...") would bury the login.
        self.start("web server", self.manage("runserver", f"127.0.0.1:{self.port}",
                                             "--noreload", "--skip-checks"),
                   stdout=subprocess.DEVNULL)
        self.wait_for_web_server(options["timeout"])
        self.stdout.write(self.style.SUCCESS(
            f"\n  The portal is ready at {self.url}\n"
            f"  Sign in with   email: {DEMO_EMAIL}   password: {DEMO_PASSWORD}\n"
            f"  API documentation: {self.url}api/docs/\n"
            "  Ctrl-C stops the demo.\n"))
        self.start("first sync", self.manage("demo_sync", "--port", str(self.port)))
        return self.watch()

    def watch(self) -> int:
        """Until Ctrl-C, or until the web server or the worker ends by itself."""
        while True:
            for name in ("web server", "worker"):
                code = self.children[name].poll()
                if code is not None:
                    self.stderr.write(f"The {name} stopped by itself (exit status {code}); "
                                      "stopping the demo.")
                    return 1
            time.sleep(POLL_SECONDS)

    # -- children ----------------------------------------------------------------------------

    def child_environment(self) -> dict[str, str]:
        env = dict(os.environ)
        # The demo's own settings, whatever .env says: debug pages, and the address at which
        # the sandbox delivers its events to the portal.
        env.update(DEBUG="1", PORTAL_PUBLIC_URL=self.url.rstrip("/"), PYTHONUNBUFFERED="1")
        # Quiet unless asked otherwise: warnings and errors only, no line per request.
        env.setdefault("LOG_LEVEL", "WARNING")
        env.setdefault("ACCESS_LOG", "0")
        return env

    def manage(self, *arguments: str) -> list[str]:
        return [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), *arguments]

    def start(self, name: str, command: list[str], **kwargs) -> subprocess.Popen:
        child = subprocess.Popen(command, env=self.env, cwd=settings.BASE_DIR,  # noqa: S603
                                 stdin=subprocess.DEVNULL, process_group=0,
                                 preexec_fn=_die_with_parent, **kwargs)
        self.children[name] = child
        return child

    def run_to_end(self, name: str, arguments: list[str], **kwargs) -> None:
        child = self.start(name, self.manage(*arguments), **kwargs)
        while child.poll() is None:
            time.sleep(POLL_SECONDS)
        del self.children[name]
        if child.returncode:
            raise CommandError(f"The {name} step failed (exit status {child.returncode}); "
                               "its error is above.")

    def wait_for_web_server(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}accounts/login/",  # noqa: S310
                                            timeout=2):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                server = self.children["web server"]
                if server.poll() is not None:
                    raise CommandError(f"The web server could not start (exit status "
                                       f"{server.returncode}); its error is above.") from exc
                if time.monotonic() > deadline:
                    raise CommandError(f"The web server did not answer at {self.url} within "
                                       f"{timeout:.0f} s.") from exc
                time.sleep(POLL_SECONDS)

    def stop_children(self) -> None:
        running = {name: child for name, child in self.children.items() if child.poll() is None}
        if running:
            self.say("Stopping the demo...")
        for child in running.values():
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + GRACE_SECONDS
        signal.signal(signal.SIGINT, self.on_second_signal)
        try:
            while any(child.poll() is None for child in running.values()):
                if time.monotonic() > deadline:
                    break
                time.sleep(POLL_SECONDS)
        except Stop:
            pass
        # A child's own children (the worker's pool and scheduler) end with it; killing each
        # group makes sure of it, and of any child that did not stop in time.
        for child in self.children.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=5)

    # -- signals and output ------------------------------------------------------------------

    def on_signal(self, signum, frame):
        if not self.stopping:
            self.stopping = True
            raise Stop

    def on_second_signal(self, signum, frame):
        raise Stop

    def port_is_free(self) -> bool:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", self.port))
            except OSError:
                return False
        return True

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()


# Celery's advice against running a worker as root is about workers that accept pickled
# messages; this one accepts JSON only (CELERY_ACCEPT_CONTENT), and the demo runs as whoever
# starts it (root in a container).
ROOT_WARNING = "You're running the worker with superuser privileges"

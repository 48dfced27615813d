import io
import json
import signal
import time
import urllib.error
import urllib.request

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Reseller, SyncRun
from demo.management.commands.demo_setup import DEMO_EMAIL, DEMO_PASSWORD, DEMO_SLUG
from demo.services import (
    DEMO_HISTORY_DAYS,
    DEMO_WAITING_DAYS,
    demo_history_backfill,
    demo_sync_stop,
)
from portal.tenancy import tenant_scope


class Stopped(Exception):
    """SIGTERM (the demo stopping) or Ctrl-C during the sync."""


def _stop(signum, frame):
    raise Stopped


class Command(BaseCommand):
    help = ("What `make demo` runs once the web server is up: the first sync of the demo "
            "reseller from the sandbox, then a one-line summary with the login. A demo that "
            "was synced before is not synced again (its schedule keeps it up to date).")

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--timeout", type=float, default=60.0)

    def handle(self, *args, **options):
        url = f"http://127.0.0.1:{options['port']}/"
        self.wait_for(f"{url}sandbox/openapi.json", options["timeout"])
        reseller = Reseller.objects.filter(slug=DEMO_SLUG).first()
        if reseller is None:
            raise CommandError("No demo reseller: run `manage.py demo_setup` first.")
        with tenant_scope(reseller):
            synced = SyncRun.objects.filter(
                reseller=reseller,
                status__in=(SyncRun.Status.SUCCEEDED, SyncRun.Status.PARTIAL)).first()
        if synced is not None:
            self.backfill(reseller)
            self.stdout.write("The demo's data are those of its last sync; the schedule keeps "
                              "them up to date.")
            return
        self.stdout.write("First sync of the demo data from the sandbox (under a minute); the "
                          "pages fill in as it goes.")
        started = time.monotonic()
        since = SyncRun.unscoped.filter(reseller=reseller).order_by("-pk").values_list(
            "pk", flat=True).first() or 0
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, _stop)
        output = io.StringIO()
        try:
            call_command("sync", DEMO_SLUG, "--json", stdout=output, stderr=io.StringIO())
        except Stopped:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            ids = list(SyncRun.unscoped.filter(reseller=reseller, pk__gt=since)
                       .values_list("pk", flat=True))
            demo_sync_stop(tenant=reseller, run_ids=ids)
            self.stdout.write("The first sync stopped before it finished; the next start of "
                              "the demo runs it again.")
            return
        except CommandError as exc:
            raise CommandError(f"The first sync did not finish: {exc} The portal works "
                               "without it; start a sync from its Sync page.") from exc
        result = json.loads(output.getvalue().strip().splitlines()[-1])
        self.backfill(reseller)
        counts = result.get("counts", {})
        outcome = ("done" if result.get("status") == SyncRun.Status.SUCCEEDED
                   else "finished with errors (the Sync page lists them)")
        self.stdout.write(self.style.SUCCESS(
            f"First sync {outcome} in {time.monotonic() - started:.0f} s: "
            f"{counts.get('locations', 0)} locations, {counts.get('listing_sites', 0)} "
            f"listing sites, {counts.get('media', 0)} photos and videos, "
            f"{counts.get('questions', 0)} questions. Sign in at {url} with "
            f"{DEMO_EMAIL} / {DEMO_PASSWORD}."))

    def backfill(self, reseller) -> None:
        """The trends need a past: the demo's is generated once from its first figures."""
        with tenant_scope(reseller):
            if demo_history_backfill(tenant=reseller):
                self.stdout.write(f"Trends: {DEMO_HISTORY_DAYS} days of history generated "
                                  "from today's figures, and the sites waiting on their "
                                  f"directories given ages of up to {DEMO_WAITING_DAYS} days, "
                                  "so that the charts and the late sites have a past (the "
                                  "demo's only; a real account's history starts with its "
                                  "first sync).")

    def wait_for(self, url: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own loopback
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise CommandError(f"The web server did not answer at {url}.") from exc
                time.sleep(0.5)

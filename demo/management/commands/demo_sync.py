import time
import urllib.error
import urllib.request

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from demo.management.commands.demo_setup import DEMO_EMAIL, DEMO_PASSWORD, DEMO_SLUG


class Command(BaseCommand):
    help = ("What `make demo` runs once the web server is up: wait for the sandbox to answer, "
            "run a first sync of the demo reseller, then print how to sign in.")

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--timeout", type=float, default=60.0)

    def handle(self, *args, **options):
        url = f"http://127.0.0.1:{options['port']}/sandbox/openapi.json"
        deadline = time.monotonic() + options["timeout"]
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own loopback
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise CommandError(f"The web server did not answer at {url}.") from exc
                time.sleep(0.5)
        self.stdout.write("First sync of the demo reseller from the sandbox:")
        call_command("sync", DEMO_SLUG, stdout=self.stdout, stderr=self.stderr)
        self.stdout.write(self.style.SUCCESS(
            f"\n  Demo ready at http://127.0.0.1:{options['port']}/ — sign in with\n"
            f"    email:    {DEMO_EMAIL}\n    password: {DEMO_PASSWORD}\n"
            "  Ctrl-C stops the web server and the worker.\n"))

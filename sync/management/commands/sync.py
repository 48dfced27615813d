import json
import time

from django.core.management.base import CommandError

from accounts.commands import TenantCommand
from accounts.models import SyncRun
from portal.retries import retry_delay
from provider import RateLimited, Transient
from sync import services as syncing

MAX_STEP_ATTEMPTS = 8


class Command(TenantCommand):
    help = ("Sync a reseller's data from the provider in the foreground, with a progress bar. "
            f"Resources: {', '.join(syncing.RESOURCES)}.")

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--only", nargs="+", metavar="RESOURCE", choices=syncing.RESOURCES,
                            help="Sync only these resources.")
        parser.add_argument("--json", action="store_true",
                            help="Print one JSON object with the outcome when done.")

    def handle_tenant(self, reseller, *args, **options):
        run, created = syncing.sync_run_create(tenant=reseller, actor=None,
                                               resources=options["only"])
        if not created:
            raise CommandError(f"Sync run {run.pk} is already {run.status} for this reseller.")
        self.progress_stream = self.stderr if options["json"] else self.stdout
        dispatcher = syncing.Dispatcher(
            chunk=lambda **kw: self.step(syncing.sync_location_chunk, reseller, **kw),
            account_resource=lambda **kw: self.step(syncing.sync_account_resource, reseller,
                                                    **kw),
        )
        self.step(syncing.sync_walk_and_dispatch, reseller, run_id=run.pk,
                  dispatcher=dispatcher)
        run.refresh_from_db()
        self.draw(run, final=True)
        if options["json"]:
            self.stdout.write(json.dumps({
                "run": run.pk, "status": run.status, "counts": run.counts,
                "requests": run.requests_made, "rate_limited": run.rate_limited,
                "errors": run.errors,
            }))
        if run.status == SyncRun.Status.FAILED:
            raise CommandError("; ".join(run.errors) or "The sync failed.")

    def step(self, function, reseller, **kwargs):
        """Run one step like its task would: waiting out rate limits and passing failures."""
        for attempt in range(MAX_STEP_ATTEMPTS):
            try:
                function(tenant=reseller, **kwargs)
                break
            except (RateLimited, Transient) as exc:
                if attempt == MAX_STEP_ATTEMPTS - 1:
                    raise CommandError(f"Gave up after repeated provider failures: {exc}") from exc
                time.sleep(retry_delay(attempt, base=1, cap=30,
                                       suggested=getattr(exc, "retry_after", None)))
        self.draw(SyncRun.objects.get(pk=kwargs["run_id"]))

    def draw(self, run, final=False):
        width = 30
        filled = width * run.percent // 100
        bar = "#" * filled + "." * (width - filled)
        line = (f"\r[{bar}] {run.percent:3d}%  {run.done + run.failed}/{run.total}"
                f"  failed {run.failed}  requests {run.requests_made}")
        self.progress_stream.write(line, ending="\n" if final else "")
        self.progress_stream.flush()

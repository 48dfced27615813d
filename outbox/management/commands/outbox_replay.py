import json

from accounts.commands import TenantCommand
from outbox.models import OutboxEntry
from outbox.services import outbox_retry


class Command(TenantCommand):
    help = ("Send a reseller's failed (and optionally rejected) changes to the provider again, "
            "e.g. after an outage or once a revoked key was replaced. Prints what it queued.")

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--kind", choices=OutboxEntry.Kind.values,
                            help="Only changes of this kind.")
        parser.add_argument("--include-rejected", action="store_true",
                            help="Also changes the provider refused (they may be refused again).")
        parser.add_argument("--dry-run", action="store_true", help="List, do not queue.")

    def handle_tenant(self, reseller, *args, **options):
        states = [OutboxEntry.State.FAILED]
        if options["include_rejected"]:
            states.append(OutboxEntry.State.REJECTED)
        entries = OutboxEntry.objects.filter(reseller=reseller, state__in=states)
        if options["kind"]:
            entries = entries.filter(kind=options["kind"])
        queued = []
        for entry in entries.order_by("created_at"):
            if not options["dry_run"]:
                outbox_retry(tenant=reseller, actor=None, entry=entry)
            queued.append({"id": entry.pk, "kind": entry.kind, "summary": entry.summary})
        self.stdout.write(json.dumps({"queued" if not options["dry_run"] else "would_queue":
                                      queued}))

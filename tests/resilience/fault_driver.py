"""The fault suite's hands inside a database: run as `python -m tests.resilience.fault_driver
COMMAND [JSON]` with DATABASE_URL naming the database the command works on; it prints one JSON
object on its last line.

- `seed` (the provider's database): seed the sandbox partner; webhook subscriptions removed, so
  that the provider's deliveries do not mix with the portal's work.
- `setup` (the portal's database): the reseller on that partner, an owner and its API token.
- `portal` (the portal's database): every change sent, every run, and the live mirror.
- `provider` (the provider's database): every create-listing the provider accepted, and what
  it holds that the mirror should hold.
"""

from __future__ import annotations

import json
import os
import sys


def seed(options: dict) -> dict:
    from sandbox.models import PartnerAccount, Subscription
    from sandbox.seeding import seed_partner

    seeded = seed_partner(api_key=options["key"], locations=options["locations"], seed=26,
                          rate_limit=(options["rate_limit"], 1),
                          latency_ms=options["latency_ms"], error_rate=0.0)
    partner = PartnerAccount.objects.get(account_number=seeded["account_number"])
    Subscription.objects.filter(partner=partner).delete()
    return {"account_number": seeded["account_number"],
            "location_numbers": seeded["location_numbers"]}


def setup(options: dict) -> dict:
    from accounts.models import Role
    from accounts.services import reseller_create_or_update, user_create_or_update
    from accounts.tokens import api_token_create
    from portal.tenancy import tenant_scope

    user, _ = user_create_or_update(email="owner@fault.example.com", password="fault-suite-26")
    reseller, _ = reseller_create_or_update(
        actor=None, slug="fault-agency", name="Fault suite agency",
        account_number=options["account_number"], provider_base_url=options["base_url"],
        api_key=options["key"], rate_limit=f"{options['rate_limit']}/1", owner=user)
    with tenant_scope(reseller):
        _, token = api_token_create(tenant=reseller, actor=None, user=user, name="fault suite",
                                    role=Role.OWNER)
    return {"slug": reseller.slug, "token": token}


def portal(options: dict) -> dict:
    from accounts.models import Business, Reseller, SyncRun
    from listings.models import Answer, ListingSite, ListingStatusReport, Question
    from media_app.models import MediaItem
    from outbox.models import OutboxEntry
    from portal.tenancy import tenant_scope

    reseller = Reseller.objects.get(slug="fault-agency")
    with tenant_scope(reseller):
        live = {"removed_at__isnull": True}
        return {
            "changes": [
                {"id": entry.pk, "state": entry.state, "attempts": entry.attempts,
                 "number": entry.business.remote_id if entry.business else None,
                 "name": (entry.payload.get("businessInfo") or {}).get("name")}
                for entry in OutboxEntry.objects.select_related("business")],
            "runs": [
                {"id": run.pk, "resources": run.resources, "status": run.status,
                 "started_at": run.started_at.timestamp() if run.started_at else None,
                 "finished_at": run.finished_at.timestamp() if run.finished_at else None,
                 "done": run.done, "failed": run.failed, "total": run.total,
                 "requests": run.requests_made, "errors": run.errors}
                for run in SyncRun.objects.order_by("pk")],
            "mirror": {
                "businesses": sorted(Business.objects.filter(**live)
                                     .values_list("remote_id", flat=True)),
                "status_reports": sorted(ListingStatusReport.objects.filter(**live)
                                         .values_list("remote_id", flat=True)),
                "listing_sites": sorted(map(list, ListingSite.objects.filter(**live)
                                            .values_list("business__remote_id", "site_id"))),
                "media": sorted(MediaItem.objects.filter(**live)
                                .values_list("remote_id", flat=True)),
                "questions": sorted(Question.objects.filter(**live)
                                    .values_list("remote_id", flat=True)),
                "answers": sorted(Answer.objects.filter(**live)
                                  .values_list("remote_id", flat=True)),
            },
        }


def provider(options: dict) -> dict:
    from sandbox import models as sandbox

    account = sandbox.PartnerAccount.objects.get(account_number=options["account_number"])
    tree = sandbox.Business.objects.filter(partner=account).exclude(
        number=account.account_number)
    return {
        "submissions": list(sandbox.ListingSubmission.objects.filter(
            partner=account, accepted=True).values_list("location__number", "body")),
        "mirror": {
            "businesses": sorted(tree.values_list("number", flat=True)),
            "status_reports": sorted(tree.filter(type="Business")
                                     .values_list("number", flat=True)),
            "listing_sites": sorted(map(list, sandbox.SiteStatus.objects.filter(
                partner=account).values_list("location__number", "site_id"))),
            "media": sorted(sandbox.MediaItem.objects.filter(partner=account)
                            .values_list("media_id", flat=True)),
            "questions": sorted(sandbox.Question.objects.filter(partner=account)
                                .values_list("question_id", flat=True)),
            "answers": sorted(sandbox.Answer.objects.filter(partner=account)
                              .values_list("answer_id", flat=True)),
        },
    }


def steps(options: dict) -> dict:
    """What a run is waiting for: its steps, and its outbox's open rows (for a failed test)."""
    from accounts.models import SyncRun
    from outbox.models import OutboxEntry
    from sync.models import SyncStep

    return {
        "runs": list(SyncRun.unscoped.values("id", "status", "attempt", "done", "failed",
                                             "total", "errors")),
        "steps": list(SyncStep.unscoped.values("id", "run_id", "attempt", "kind", "state",
                                               "deliveries", "lost_worker", "dispatched_at",
                                               "claimed_at", "heartbeat_at")),
        "open_changes": list(OutboxEntry.unscoped.exclude(
            state__in=["accepted", "rejected", "failed", "in_doubt"]).values(
            "id", "state", "attempts", "in_doubt", "next_attempt_at", "queued_at",
            "heartbeat_at", "request_sent_at", "last_error")[:20]),
    }


COMMANDS = {"seed": seed, "setup": setup, "portal": portal, "provider": provider,
            "steps": steps}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    import django

    django.setup()
    command, options = sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    print(json.dumps(COMMANDS[command](options), default=str))


if __name__ == "__main__":
    main()

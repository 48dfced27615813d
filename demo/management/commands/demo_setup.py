import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Role
from accounts.services import membership_set, reseller_create_or_update, user_create_or_update
from events.selectors import event_receiver_get
from events.services import event_receiver_enable
from portal.tenancy import tenant_scope
from reviews_app.services import survey_add
from sandbox.auth import hash_key
from sandbox.models import PartnerAccount
from sandbox.models import Survey as SandboxSurvey
from sandbox.seeding import seed_partner

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "demo-portal-2026"  # noqa: S105 - printed to the person running the demo
DEMO_SLUG = "demo-agency"
DEMO_SANDBOX_KEY = "demo-sandbox-key-0001"  # noqa: S105 - a key of the local sandbox only


class Command(BaseCommand):
    help = ("Prepare the demo: seed the embedded sandbox, create the demo owner and a demo "
            "reseller pointed at the sandbox, and print how to sign in. Safe to run again.")

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--locations", type=int, default=300)
        parser.add_argument("--reseed", action="store_true",
                            help="Seed the sandbox afresh even if it was seeded before.")

    def handle(self, *args, **options):
        if not settings.SANDBOX_ENABLED:
            raise CommandError("The demo runs on the embedded sandbox; set SANDBOX_ENABLED=1.")

        # Seeding resets the partner's data, so a restarted demo keeps what was done in it.
        partner = PartnerAccount.objects.filter(key_hash=hash_key(DEMO_SANDBOX_KEY)).first()
        if partner is None or partner.account_number is None or options["reseed"]:
            seed_partner(api_key=DEMO_SANDBOX_KEY, locations=options["locations"], seed=1)
            partner = PartnerAccount.objects.get(key_hash=hash_key(DEMO_SANDBOX_KEY))
        owner, _ = user_create_or_update(email=DEMO_EMAIL, password=DEMO_PASSWORD,
                                         full_name="Demo Owner")
        reseller, _ = reseller_create_or_update(
            actor=None, slug=DEMO_SLUG, name="Demo Agency",
            account_number=partner.account_number,
            provider_base_url=f"http://127.0.0.1:{options['port']}/sandbox",
            api_key=DEMO_SANDBOX_KEY,
        )
        membership_set(tenant=reseller, actor=None, user=owner, role=Role.OWNER)
        with tenant_scope(reseller):
            for survey in SandboxSurvey.objects.filter(partner=partner):
                survey_add(tenant=reseller, actor=None, remote_id=survey.survey_id,
                           name=survey.name)
            receiver = event_receiver_get(tenant=reseller)
            live_updates = bool(settings.PORTAL_PUBLIC_URL)
            if live_updates and (receiver is None or receiver.disabled_at is not None):
                # Queued in the outbox: the worker subscribes once it is up.
                event_receiver_enable(tenant=reseller, actor=None)
        self.stdout.write(json.dumps({"reseller": reseller.slug,
                                      "live_updates": live_updates,
                                      "account_number": partner.account_number,
                                      "sandbox_locations": partner.seeded_locations}))

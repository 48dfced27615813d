import json
import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from accounts.services import reseller_create_or_update


class Command(BaseCommand):
    help = (
        "Create or update a reseller. The provider API key is read from standard input "
        "(never from the command line, where it would land in shell history and `ps`)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--slug", required=True)
        parser.add_argument("--name", required=True)
        parser.add_argument("--account-number", required=True, type=int)
        parser.add_argument("--base-url", required=True)
        parser.add_argument("--owner", help="Email of an existing user to make owner.")
        parser.add_argument("--rate-limit", metavar="auto|COUNT/SECONDS",
                            help="The provider's rate limit for this key: auto (learn it; the "
                                 "default of a new reseller) or a known COUNT/SECONDS.")
        parser.add_argument("--dialect", choices=["neutral", "provider"],
                            help="The names the provider speaks: neutral (the embedded "
                                 "sandbox; the default) or provider (the real provider).")
        parser.add_argument("--no-key", action="store_true",
                            help="Do not read a key from standard input (keep the stored one).")

    def handle(self, *args, **options):
        api_key = None
        if not options["no_key"]:
            api_key = sys.stdin.readline().strip() if not sys.stdin.isatty() else ""
            if not api_key:
                raise CommandError("Pipe the API key on standard input, or pass --no-key.")
        owner = None
        if options["owner"]:
            owner = User.objects.filter(email=options["owner"].lower()).first()
            if owner is None:
                raise CommandError(f"No user with email {options['owner']}; "
                                   "create one with `manage.py user_create`.")
        try:
            reseller, created = reseller_create_or_update(
                actor=None, slug=options["slug"], name=options["name"],
                account_number=options["account_number"], provider_base_url=options["base_url"],
                api_key=api_key, owner=owner, rate_limit=options["rate_limit"],
                wire_dialect=options["dialect"],
            )
        except ValidationError as exc:
            problems = "; ".join(f"{field}: {' '.join(errs)}"
                                 for field, errs in exc.message_dict.items())
            raise CommandError(problems) from None
        self.stdout.write(json.dumps({"slug": reseller.slug, "id": reseller.pk,
                                      "created": created, "rate_limit": reseller.rate_limit_text,
                                      "dialect": reseller.wire_dialect}))

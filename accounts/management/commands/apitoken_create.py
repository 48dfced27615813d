import json

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Membership, Reseller, Role, User
from accounts.tokens import TokenRoleTooHigh, api_token_create
from portal.tenancy import tenant_scope


class Command(BaseCommand):
    help = ("Create a personal API token for a member of a reseller and print it once (it is "
            "stored only as a hash).")

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="Email of the member.")
        parser.add_argument("--reseller", required=True, help="Slug of the reseller.")
        parser.add_argument("--role", choices=Role.values, default=None,
                            help="Cap the token's role (default: the member's role).")
        parser.add_argument("--name", default="command line")

    def handle(self, *args, **options):
        user = User.objects.filter(email=options["user"].lower()).first()
        reseller = Reseller.objects.filter(slug=options["reseller"]).first()
        if user is None:
            raise CommandError(f"No user with email {options['user']}.")
        if reseller is None:
            raise CommandError(f"No reseller with slug {options['reseller']}.")
        with tenant_scope(reseller):
            membership = Membership.objects.filter(reseller=reseller, user=user).first()
            if membership is None:
                raise CommandError(f"{user.email} is not a member of {reseller.slug}.")
            try:
                token, plaintext = api_token_create(
                    tenant=reseller, actor=None, user=user, name=options["name"],
                    role=options["role"] or membership.role)
            except TokenRoleTooHigh as exc:
                raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({"token": plaintext, "id": token.pk, "role": token.role,
                                      "reseller": reseller.slug}))

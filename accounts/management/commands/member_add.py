import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.models import Business, Membership, Reseller, Role, User
from accounts.services import membership_set
from accounts.settings_forms import MAX_BIGINT
from accounts.settings_selectors import limit_business_get
from accounts.settings_services import member_update
from portal.tenancy import tenant_scope


class Command(BaseCommand):
    help = ("Give an existing user a role in a reseller, optionally limited to one business and "
            "everything under it; changes the role and limit of an existing member. Prints one "
            "JSON line.")

    def add_arguments(self, parser):
        parser.add_argument("--reseller", required=True, help="Slug of the reseller.")
        parser.add_argument("--email", required=True,
                            help="Email of an existing user (see `manage.py user_create`).")
        # Checked in handle() rather than by argparse, whose refusal exits with status 2 and
        # a usage text instead of a CommandError's one line and status 1.
        parser.add_argument("--role", required=True, help="owner, manager or viewer.")
        parser.add_argument("--limit-to", metavar="BUSINESS_NUMBER", default=None,
                            help="Limit the member to this business and everything under it "
                                 "(default: the whole account).")

    def handle(self, *args, **options):
        reseller = Reseller.objects.filter(slug=options["reseller"]).first()
        if reseller is None:
            raise CommandError(f"--reseller: no reseller with slug {options['reseller']!r}.")
        email = User.objects.normalize_email(options["email"].strip()).lower()
        user = User.objects.filter(email=email).first()
        if user is None:
            raise CommandError(f"--email: no user with email {options['email']!r}; create one "
                               "with `manage.py user_create`.")
        role = options["role"].strip().lower()
        if role not in Role.values:
            raise CommandError(f"--role: {options['role']!r} is not a role; choose "
                               f"{', '.join(Role.values)}.")
        with tenant_scope(reseller):
            business = self.limit_business(reseller, options["limit_to"])
            try:
                with transaction.atomic():
                    existing = Membership.objects.filter(reseller=reseller, user=user).first()
                    if existing is None:
                        membership_set(tenant=reseller, actor=None, user=user, role=role,
                                       limited_to=business)
                    else:
                        # The settings pages' service: it refuses to leave the reseller
                        # without an owner of the whole account (LAST_OWNER_MESSAGE).
                        member_update(tenant=reseller, actor=None, membership=existing,
                                      role=role, limited_to=business)
            except ValidationError as exc:
                option = "--role" if role != Role.OWNER else "--limit-to"
                raise CommandError(f"{option}: " + " ".join(exc.messages)) from None
        self.stdout.write(json.dumps({
            "reseller": reseller.slug,
            "email": user.email,
            "role": role,
            "limit_to": business.remote_id if business else None,
            "created": existing is None,
        }))

    def limit_business(self, reseller: Reseller, value: str | None) -> Business | None:
        if value is None:
            return None
        text = value.strip()
        # Digits only (int() would also take "1_000" or "+5"), and within the column's range.
        if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= MAX_BIGINT:
            raise CommandError(f"--limit-to: {value!r} is not a business number.")
        number = int(text)
        business = limit_business_get(tenant=reseller, membership=None, remote_id=number)
        if business is not None:
            return business
        if Business.objects.filter(reseller=reseller, remote_id=number).exists():
            raise CommandError(f"--limit-to: business {number} was removed from "
                               f"{reseller.slug}; choose a current one.")
        raise CommandError(f"--limit-to: {reseller.slug} has no business with number {number}.")

"""Base class for management commands that act inside one reseller's scope."""

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Reseller
from portal.tenancy import tenant_scope


class TenantCommand(BaseCommand):
    """Takes the reseller's slug as its first argument and runs `handle_tenant` in its scope."""

    def add_arguments(self, parser):
        parser.add_argument("reseller_slug", help="Slug of the reseller to act for.")

    def handle(self, *args, **options):
        reseller = Reseller.objects.filter(slug=options["reseller_slug"]).first()
        if reseller is None:
            raise CommandError(f"No reseller with slug {options['reseller_slug']!r}.")
        with tenant_scope(reseller):
            return self.handle_tenant(reseller, *args, **options)

    def handle_tenant(self, reseller: Reseller, *args, **options):
        raise NotImplementedError

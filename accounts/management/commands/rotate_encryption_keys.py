import json

from django.core.management.base import BaseCommand, CommandError

from accounts.credentials import CredentialError
from accounts.models import Reseller
from accounts.services import reseller_reencrypt_api_key


class Command(BaseCommand):
    help = (
        "Re-encrypt every stored provider API key with the newest key of "
        "API_KEY_ENCRYPTION_KEYS. Run it after putting a new key first in the list; once it "
        "reports no failures the old keys can be removed."
    )

    def handle(self, *args, **options):
        rotated, unchanged, failures = 0, 0, []
        for reseller in Reseller.objects.exclude(api_key_encrypted="").iterator():
            try:
                if reseller_reencrypt_api_key(reseller=reseller):
                    rotated += 1
                else:
                    unchanged += 1
            except CredentialError as exc:
                failures.append({"slug": reseller.slug, "error": str(exc)})
        self.stdout.write(json.dumps({"rotated": rotated, "unchanged": unchanged,
                                      "failed": failures}))
        if failures:
            raise CommandError(f"{len(failures)} key(s) could not be decrypted; see above.")

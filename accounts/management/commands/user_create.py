import json
import sys

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from accounts.services import user_create_or_update


class Command(BaseCommand):
    help = "Create or update a user. With --password-stdin the password is read from stdin."

    def add_arguments(self, parser):
        parser.add_argument("--email", required=True)
        parser.add_argument("--name", default="")
        parser.add_argument("--password-stdin", action="store_true")
        parser.add_argument("--staff", action="store_true", help="Allow Django admin.")
        parser.add_argument("--superuser", action="store_true")

    def handle(self, *args, **options):
        try:
            validate_email(options["email"])
        except ValidationError:
            raise CommandError(f"--email: {options['email']!r} is not an email address.") from None
        password = None
        if options["password_stdin"]:
            password = sys.stdin.readline().rstrip("\n")
            try:
                validate_password(password)
            except ValidationError as exc:
                raise CommandError("password: " + " ".join(exc.messages)) from None
        user, created = user_create_or_update(email=options["email"], password=password,
                                              full_name=options["name"])
        if options["staff"] or options["superuser"]:
            user.is_staff = True
            user.is_superuser = options["superuser"] or user.is_superuser
            user.save(update_fields=["is_staff", "is_superuser"])
        self.stdout.write(json.dumps({"email": user.email, "id": user.pk, "created": created}))

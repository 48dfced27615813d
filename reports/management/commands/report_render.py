"""manage.py report_render --reseller SLUG [--business NUMBER] --from YYYY-MM-DD
--to YYYY-MM-DD --out FILE.pdf"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Reseller
from portal.tenancy import tenant_scope
from reports.rendering import report_render
from reports.selectors import report_business_get


def _day(name: str):
    def parse(value: str) -> date:
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise CommandError(f"--{name}: {value!r} is not a day (YYYY-MM-DD).") from None
    return parse


class Command(BaseCommand):
    help = ("Write a client's report over a period as a PDF in the reseller's brand, and "
            'print {"pages", "bytes", "business", "period"} as one line of JSON.')

    def add_arguments(self, parser):
        parser.add_argument("--reseller", required=True, metavar="SLUG",
                            help="Slug of the reseller whose report it is.")
        parser.add_argument("--business", type=int, metavar="NUMBER",
                            help="Business number of the client (a reseller, an enterprise "
                                 "or a location, with everything under it); without it, "
                                 "the whole account.")
        parser.add_argument("--from", dest="date_from", required=True, metavar="YYYY-MM-DD",
                            help="First day of the period.")
        parser.add_argument("--to", dest="date_to", required=True, metavar="YYYY-MM-DD",
                            help="Last day of the period (today at the latest).")
        parser.add_argument("--out", required=True, metavar="FILE.pdf",
                            help="Where to write the PDF.")

    def handle(self, *args, **options):
        reseller = Reseller.objects.filter(slug=options["reseller"]).first()
        if reseller is None:
            raise CommandError(f"--reseller: no reseller with slug {options['reseller']!r}.")
        date_from = _day("from")(options["date_from"])
        date_to = _day("to")(options["date_to"])
        out = Path(options["out"])
        if not out.parent.is_dir():
            raise CommandError(f"--out: the folder {str(out.parent)!r} does not exist.")
        with tenant_scope(reseller):
            business = None
            try:
                if options["business"] is not None:
                    business = report_business_get(tenant=reseller, membership=None,
                                                   number=options["business"])
                rendered = report_render(tenant=reseller, business=business,
                                         date_from=date_from, date_to=date_to)
            except ValidationError as exc:
                raise CommandError(" ".join(
                    f"--{name}: {' '.join(messages)}"
                    for name, messages in exc.message_dict.items())) from None
        try:
            out.write_bytes(rendered.pdf)
        except OSError as exc:
            raise CommandError(f"--out: {out} could not be written ({exc.strerror}).") from None
        self.stdout.write(json.dumps({
            "pages": rendered.pages, "bytes": len(rendered.pdf),
            "business": business.remote_id if business is not None else None,
            "period": {"from": date_from.isoformat(), "to": date_to.isoformat()}}))

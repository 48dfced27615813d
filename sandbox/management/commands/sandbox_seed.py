"""Seed (or reset) one partner account of the embedded sandbox; prints one JSON object."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from sandbox.seeding import SeedError, parse_rate_limit, seed_partner


class Command(BaseCommand):
    help = (
        "Create or reset the sandbox partner account of an API key with deterministic data, "
        "and print a JSON summary (api_key, account_number, enterprise_ids, location_numbers, "
        "survey_ids, subscription_ids, ...)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--api-key", required=True, help="The partner key to seed.")
        parser.add_argument("--locations", type=int, default=50, help="Number of locations.")
        parser.add_argument("--seed", type=int, default=1, help="Seed of the generated data.")
        parser.add_argument("--rate-limit", help="COUNT/SECONDS, e.g. 100/60.")
        parser.add_argument("--dialect", choices=["neutral", "provider"],
                            help="The names the account speaks on the wire: neutral (the "
                                 "default) or the provider's own.")
        parser.add_argument("--latency-ms", type=int, help="Latency added to every request.")
        parser.add_argument("--error-rate", type=float, help="Share (0..1) answered HTTP 500.")
        parser.add_argument(
            "--status-step-seconds",
            type=int,
            help="Seconds a listing site spends in each status after a create.",
        )

    def handle(self, *args, **options) -> None:
        try:
            if options["rate_limit"]:
                parse_rate_limit(options["rate_limit"])
            summary = seed_partner(
                api_key=options["api_key"],
                locations=options["locations"],
                seed=options["seed"],
                rate_limit=options["rate_limit"],
                latency_ms=options["latency_ms"],
                error_rate=options["error_rate"],
                status_step_seconds=options["status_step_seconds"],
                dialect=options["dialect"],
            )
        except SeedError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(json.dumps(summary))

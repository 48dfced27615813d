"""The dry run of a bulk change over 10,000 locations (docs/performance.md, "Bulk changes"):
its wall time and its SQL statements, against 1,000 locations to show they do not grow.

    .venv/bin/python bench/bulk.py [--locations 10000] [--json]

PostgreSQL on 127.0.0.1 (its own database, `portal_bench_bulk` or $BENCH_DATABASE_URL, created
when missing and migrated; see bench/_web_env.py). Each run adds a reseller with its locations
and their accepted listing versions, measures, and deletes the reseller again.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _web_env as env  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/portal_bench_bulk"
TARGET_SECONDS = 10.0

HOURS = [{"day": day, "isOpen": 1, "workingHours": [{"startHour": 28800, "endHour": 64800}]}
         for day in range(5)]
# Each scenario: what is set, replace or append.
SCENARIOS = {
    "hours replaced": ({"additionalInfo": {"hoursOfOperations": HOURS}}, "replace"),
    "description set": ({"businessInfo": {"mainBusinessDescription": "New description."}},
                        "replace"),
    "category appended": ({"profileListing": {"additionalCategories": ["Coffee shop"]}},
                          "append"),
}


def make_locations(count: int):
    """A reseller with one enterprise of `count` locations, each with an accepted version."""
    from django.utils import timezone

    from accounts.models import Business, Reseller
    from listings.models import ListingVersion

    stamp = time.time_ns()
    reseller = Reseller.objects.create(name=f"Bench bulk {stamp}", slug=f"bench-bulk-{stamp}",
                                       account_number=stamp % 10**12)
    parent = Business.unscoped.create(reseller=reseller, remote_id=1, name="Brand",
                                      type=Business.Type.ENTERPRISE_LOCATION, tree_path="/1/")
    locations = Business.unscoped.bulk_create(
        [Business(reseller=reseller, remote_id=10 + i, name=f"Location {i:05}", parent=parent,
                  depth=1, tree_path=f"/1/{10 + i}/", city=("Austin", "Dallas")[i % 2],
                  state="TX", zip="78701", country_code="US", phone="(512) 555-0100")
         for i in range(count)], batch_size=2000)
    now = timezone.now()
    ListingVersion.unscoped.bulk_create(
        [ListingVersion(
            reseller=reseller, business=location, number=1, accepted_at=now,
            document={"businessInfo": {"name": location.name, "phone": location.phone,
                                       "location": {"address1": f"{i} Main St",
                                                    "city": location.city, "state": "TX",
                                                    "zip": "78701", "countryCode": "US"}},
                      "additionalInfo": {"businessStatus": "Open", "hoursOfOperations": [
                          {"day": 0, "isOpen": 1,
                           "workingHours": [{"startHour": 32400, "endHour": 61200}]}]},
                      "profileListing": {"primaryCategoryProfile": "Cafe",
                                         "additionalCategories": ["Bakery"]}})
         for i, location in enumerate(locations)], batch_size=2000)
    return reseller, parent


def dry_run(reseller, parent, set_: dict, lists: str) -> tuple[float, int, dict]:
    from django.db import connection

    from bulk.services import bulk_change_create
    from portal.tenancy import tenant_scope

    statements = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with tenant_scope(reseller), connection.execute_wrapper(count):
        began = time.perf_counter()
        change = bulk_change_create(tenant=reseller, actor=None,
                                    businesses={"node": parent.remote_id}, set=set_,
                                    lists=lists, waves=[5, 50], dry_run=True)
        seconds = time.perf_counter() - began
    return seconds, len(statements), change.counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    env.add_common_arguments(parser)
    parser.set_defaults(database_url=DEFAULT_DATABASE_URL)
    parser.add_argument("--locations", type=int, default=10_000)
    args = parser.parse_args()
    env.django_setup(args)
    from accounts.models import Reseller

    report = env.Report(f"Bulk change dry run, {args.locations:,} locations")
    report.figures["machine"] = env.machine()
    report.figures["cpu_loop_ms"] = env.cpu_loop_ms()
    small_reseller, small_parent = make_locations(1_000)
    reseller, parent = make_locations(args.locations)
    try:
        for name, (set_, lists) in SCENARIOS.items():
            _, small_queries, _ = dry_run(small_reseller, small_parent, set_, lists)
            seconds, queries, counts = dry_run(reseller, parent, set_, lists)
            report.figures[name] = {"seconds": round(seconds, 2), "queries": queries,
                                    "queries_at_1000": small_queries, "counts": counts}
            report.check(f"{name}: wall time", round(seconds, 2), TARGET_SECONDS, "s")
            report.check(f"{name}: SQL statements ({small_queries} at 1,000)", queries,
                         small_queries + 1, "statements")
    finally:
        Reseller.objects.filter(pk__in=[reseller.pk, small_reseller.pk]).delete()
    report.print(args.json)
    sys.exit(0 if report.all_met else 1)


if __name__ == "__main__":
    main()

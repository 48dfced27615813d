"""The history at 50,000 businesses on PostgreSQL (docs/performance.md, "History and trends"):
the daily write (time and SQL statements, against 5,000 businesses to show they are bounded per
batch) and the trend reads of a location, the largest enterprise and the account with two years
of history, against the list pages' target.

    .venv/bin/python bench/history.py [--locations 50000] [--days 730] [--iterations 30]
                                      [--rebuild] [--json]

PostgreSQL on 127.0.0.1, in a database of its own (`portal_bench_history`, or
$BENCH_DATABASE_URL; created when missing and migrated; see bench/_web_env.py). The first run
builds the account and its two years of days (some minutes); later runs reuse them.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _web_env as env  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/portal_bench_history"
SLUG = "bench-history"
SMALL_SLUG = "bench-history-small"
MEDIAN_MS = 50  # the list pages' target (docs/performance.md, "Pages at 50,000 businesses")
WRITE_SECONDS = 30.0
ENTERPRISES, SUB_RESELLERS = 100, 4


def marker(locations: int, days: int) -> str:
    return f"Bench history v1 ({locations} locations, {days} days)"


def build_account(slug: str, locations: int, *, name: str):
    """A reseller with sub-resellers, enterprises and `locations` locations, each with a
    status report (no sites: the history reads the reports' counts)."""
    from accounts.models import Business, Reseller
    from listings.mirroring import report_summary_refresh
    from listings.models import ListingStatusReport
    from reviews_app.models import ReviewCount

    Reseller.objects.filter(slug=slug).delete()
    account_number = 8_000_000_000 + locations
    reseller = Reseller.objects.create(name=name, slug=slug, account_number=account_number,
                                       provider_base_url="https://provider.example/resources")
    number = account_number
    subs = []
    for n in range(SUB_RESELLERS):
        number += 1
        subs.append(Business(reseller=reseller, remote_id=number, name=f"Sub-reseller {n}",
                             type=Business.Type.RESELLER, depth=0, tree_path=f"/{number}/"))
    Business.unscoped.bulk_create(subs)
    brands = []
    for n in range(ENTERPRISES):
        number += 1
        parent = subs[n % SUB_RESELLERS]
        brands.append(Business(reseller=reseller, remote_id=number, name=f"Brand {n}",
                               type=Business.Type.ENTERPRISE_LOCATION, depth=1, parent=parent,
                               tree_path=f"{parent.tree_path}{number}/"))
    Business.unscoped.bulk_create(brands)
    # A few large brands and many small ones.
    weights = [1 / (rank + 1) for rank in range(ENTERPRISES)]
    total = sum(weights)
    owners = []
    for rank, weight in enumerate(weights):
        owners += [brands[rank]] * round(locations * weight / total)
    owners = (owners + brands * (locations // ENTERPRISES + 1))[:locations]
    for start in range(0, locations, 5000):
        rows = []
        for index in range(start, min(locations, start + 5000)):
            number += 1
            brand = owners[index]
            rows.append(Business(reseller=reseller, remote_id=number, name=f"Shop {index}",
                                 parent=brand, depth=2, tree_path=f"{brand.tree_path}{number}/",
                                 city="Austin", country_code="US"))
        Business.unscoped.bulk_create(rows)
        reports = []
        for business in rows:
            n = business.remote_id
            total_sites = 12 + n % 11
            need = n % 4
            synced = max(0, total_sites - need - n % 3 - 2)
            reports.append(ListingStatusReport(
                reseller=reseller, remote_id=n, business=business, business_name=business.name,
                location_status="Published", total_sites=total_sites, synced_count=synced,
                submitted_count=total_sites - synced - need - 2, need_updates_count=need,
                opted_out_count=1, not_connected_count=1, needs_action=need > 0))
        ListingStatusReport.unscoped.bulk_create(reports)
        report_summary_refresh(business_ids=[business.pk for business in rows])
    ReviewCount.unscoped.create(reseller=reseller, remote_id=account_number,
                                review_count=90_000,
                                count_by_rating={"5": 50_000, "4": 20_000, "3": 9_000,
                                                 "2": 5_000, "1": 6_000})
    return reseller


def build_history(reseller, days: int) -> None:
    """`days` days before today for every business and the account, generated in SQL."""
    from django.db import connection

    from history.models import AccountDay, BusinessDay

    day_table = BusinessDay._meta.db_table
    account_table = AccountDay._meta.db_table
    figures = """
        CASE WHEN b.type = 'Business' THEN 1 ELSE 0 END,
        CASE WHEN b.type = 'Business' THEN 1 ELSE 0 END,
        22, 10 + (b.id + d.n) %% 9, 8 - (b.id + d.n) %% 9, (b.id + d.n) %% 4, 1,
        3 - (b.id + d.n) %% 4,
        CASE WHEN (b.id + d.n) %% 4 > 0 THEN 1 ELSE 0 END,
        NULL, NULL, NULL, NULL, NULL, NULL, now()"""
    columns = ("reseller_id, business_id, day, locations, reports, total_sites, synced, "
               "submitted, need_updates, opted_out, not_connected, needs_action, reviews, "
               "rating_1, rating_2, rating_3, rating_4, rating_5, recorded_at")
    BusinessDay.unscoped.filter(reseller=reseller).delete()
    AccountDay.unscoped.filter(reseller=reseller).delete()
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")
        for first in range(1, days + 1, 30):
            last = min(days, first + 29)
            cursor.execute(f"""
                INSERT INTO {day_table} ({columns})
                SELECT b.reseller_id, b.id, CURRENT_DATE - d.n, {figures}
                FROM accounts_business b CROSS JOIN generate_series(%s, %s) AS d(n)
                WHERE b.reseller_id = %s
            """, [first, last, reseller.pk])  # noqa: S608 - table names from the models
        cursor.execute(f"""
            INSERT INTO {account_table} ({columns.replace('business_id, ', '')},
                                         competitors, competitor_rating, competitor_reviews,
                                         survey_responses, survey_score, nps_promoters,
                                         nps_passives, nps_detractors)
            SELECT %s, CURRENT_DATE - d.n, 50000, 50000, 1000000, 700000 - 100 * d.n,
                   150000 + 50 * d.n, 50000 + 50 * d.n, 50000, 50000, 30000, 90000 - d.n,
                   6000, 5000, 9000, 20000, 50000 - d.n, now(), 120, 4.1, 40000, 300, 74.5,
                   150, 90, 60
            FROM generate_series(1, %s) AS d(n)
        """, [reseller.pk, days])  # noqa: S608
        cursor.execute(f"ANALYZE {day_table}")
        cursor.execute(f"ANALYZE {account_table}")
        cursor.execute("SET synchronous_commit = on")


def ensure_data(locations: int, days: int, rebuild: bool) -> tuple:
    from accounts.models import Reseller
    from history.models import AccountDay, BusinessDay

    name = marker(locations, days)
    reseller = Reseller.objects.filter(slug=SLUG, name=name).first()
    if reseller is None or rebuild:
        began = time.perf_counter()
        reseller = build_account(SLUG, locations, name=name)
        print(f"built {locations:,} locations in {time.perf_counter() - began:.0f} s",
              file=sys.stderr)
    # The account's days are written last: all of them there, the history is whole.
    if rebuild or AccountDay.unscoped.filter(reseller=reseller).count() < days:
        began = time.perf_counter()
        build_history(reseller, days)
        print(f"built {days} days of history in {time.perf_counter() - began:.0f} s",
              file=sys.stderr)
    small_name = marker(locations // 10, 0)
    small = Reseller.objects.filter(slug=SMALL_SLUG, name=small_name).first()
    if small is None or rebuild:
        small = build_account(SMALL_SLUG, locations // 10, name=small_name)
    rows = BusinessDay.unscoped.filter(reseller=reseller).count()
    return reseller, small, rows


def timed_write(reseller, day) -> tuple[float, int]:
    from django.db import connection

    from history.services import history_day_record
    from portal.tenancy import tenant_scope

    statements = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with tenant_scope(reseller), connection.execute_wrapper(count):
        began = time.perf_counter()
        history_day_record(tenant=reseller, day=day)
        seconds = time.perf_counter() - began
    return seconds, len(statements)


def measure(fn, iterations: int) -> dict:
    from django.db import connection, reset_queries

    connection.force_debug_cursor = True  # count the queries
    fn()  # warm up
    samples = []
    queries = 0
    for _ in range(iterations):
        reset_queries()
        began = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - began)
        queries = len(connection.queries)
    return {**env.summary_ms(samples), "queries": queries}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    env.add_common_arguments(parser)
    parser.set_defaults(database_url=DEFAULT_DATABASE_URL)
    parser.add_argument("--locations", type=int, default=50_000)
    parser.add_argument("--days", type=int, default=730)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    if "bench" not in args.database_url.rsplit("/", 1)[-1]:
        raise SystemExit("The bench's database name must contain 'bench'.")
    env.django_setup(args)
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from accounts.models import Business, Membership, Role, User
    from accounts.tokens import api_token_create
    from history.api.serializers import history_body
    from history.models import BusinessDay
    from history.selectors import history_days, history_series, history_subject
    from history.services import LOCATION_BATCH
    from history.trends import trends_build
    from listings.models import ListingStatusReport
    from portal.tenancy import tenant_scope

    report = env.Report(f"History at {args.locations:,} businesses, {args.days} days")
    report.figures["machine"] = env.machine()
    report.figures["cpu_loop_ms"] = env.cpu_loop_ms()
    reseller, small, rows = ensure_data(args.locations, args.days, args.rebuild)
    report.figures["business_days"] = rows
    today = timezone.localdate()

    # -- the daily write ----------------------------------------------------------------------
    with tenant_scope(reseller):
        BusinessDay.objects.filter(reseller=reseller, day=today).delete()
    with tenant_scope(small):
        BusinessDay.objects.filter(reseller=small, day=today).delete()
    first, statements = timed_write(reseller, today)
    _, small_statements = timed_write(small, today)
    again, statements_again = timed_write(reseller, today)
    with tenant_scope(reseller):
        moved = list(ListingStatusReport.objects.filter(reseller=reseller)
                     .order_by("pk").values_list("pk", flat=True)[::10])
        ListingStatusReport.objects.filter(pk__in=moved).update(synced_count=0)
    changed, _ = timed_write(reseller, today)
    batches = -(-args.locations // LOCATION_BATCH)
    report.figures["write"] = {
        "first_of_the_day_s": round(first, 2), "same_day_unchanged_s": round(again, 2),
        "same_day_a_tenth_changed_s": round(changed, 2), "statements": statements,
        "statements_small": small_statements, "statements_again": statements_again,
        "location_batches": batches, "batch_size": LOCATION_BATCH}
    print(f"write: {report.figures['write']}", file=sys.stderr)
    report.check("daily write of the account, first of the day", round(first, 2),
                 WRITE_SECONDS, "s")
    report.check("daily write again the same day, nothing changed", round(again, 2),
                 WRITE_SECONDS, "s")
    report.check("daily write again, a tenth of the locations changed", round(changed, 2),
                 WRITE_SECONDS, "s")
    # The statements beyond the first batch's are one INSERT ... SELECT per batch of locations.
    report.check(f"statements ({small_statements} at {args.locations // 10:,} locations, one "
                 f"batch)", statements, small_statements + batches - 1, "statements")

    # -- the trend reads ----------------------------------------------------------------------
    with tenant_scope(reseller):
        location = (Business.objects.filter(reseller=reseller, type=Business.Type.BUSINESS)
                    .order_by("pk")[args.locations // 2])
        biggest = Business.objects.filter(reseller=reseller, name="Brand 0").get()
    start = today - timedelta(days=args.days)
    reads = {}
    with tenant_scope(reseller):
        for name, business in (("location", location), ("enterprise", biggest),
                               ("account", None)):
            subject = history_subject(tenant=reseller, membership=None, business=business)
            days = history_days(tenant=reseller, subject=subject)
            for interval in ("day", "week", "month"):
                reads[f"{name}_series_{interval}_2y"] = measure(
                    lambda days=days, interval=interval, subject=subject: history_body(
                        subject=subject, start=start, end=today, interval=interval,
                        points=history_series(days=days, start=start, end=today,
                                              interval=interval)), args.iterations)
            reads[f"{name}_dashboard_trends"] = measure(
                lambda business=business: trends_build(tenant=reseller, membership=None,
                                                       business=business),
                args.iterations)
    # Over HTTP, as an agency's software asks: two years by day.
    user, _ = User.objects.get_or_create(email="bench-history@example.com")
    membership, _ = Membership.unscoped.get_or_create(reseller=reseller, user=user,
                                                      defaults={"role": Role.VIEWER})
    with tenant_scope(reseller):
        _, token = api_token_create(tenant=reseller, actor=None, user=user, name="bench",
                                    role=Role.VIEWER)
    client = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    for name, url in (
            ("api_account_2y_day", f"/api/v1/t/{SLUG}/history/?interval=day&from={start}"),
            ("api_location_2y_day", f"/api/v1/t/{SLUG}/businesses/{location.remote_id}/"
                                    f"history/?interval=day&from={start}"),
            ("api_enterprise_2y_week", f"/api/v1/t/{SLUG}/businesses/{biggest.remote_id}/"
                                       f"history/?interval=week&from={start}")):
        reads[name] = measure(lambda url=url: client.get(url, **headers), args.iterations)
    report.figures["reads"] = reads
    for name, figures in reads.items():
        report.check(f"{name} (median; {figures['queries']} queries)", figures["median_ms"],
                     MEDIAN_MS, "ms")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [BusinessDay._meta.db_table])
        report.figures["business_day_table_mb"] = round(cursor.fetchone()[0] / 2**20)
    report.print(args.json)
    sys.exit(0 if report.all_met else 1)


if __name__ == "__main__":
    main()

"""The history at 50,000 businesses on PostgreSQL (docs/performance.md, "History and trends"):
the daily write (time and SQL statements, against 5,000 businesses to show they are bounded per
batch), the trend reads of a location, the largest enterprise and the account with two years
of history, the late-sites list (pages, filters, sorts, count) against the list pages' target,
and the alert rules evaluated after a sync (time and statements, against 5,000 businesses).

    .venv/bin/python bench/history.py [--locations 50000] [--days 730] [--iterations 30]
                                      [--parts write reads late alerts] [--explain]
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
PARTS = ("write", "reads", "late", "alerts")


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
    # A few weeks of the small account's days, for the alert rules' periods.
    if rebuild or AccountDay.unscoped.filter(reseller=small).count() < SMALL_DAYS:
        build_history(small, SMALL_DAYS)
    rows = BusinessDay.unscoped.filter(reseller=reseller).count()
    return reseller, small, rows


# -- directory sites, for the late-sites list and the alerts -------------------------------------

SITES_PER_LOCATION = 10
SMALL_DAYS = 40  # the small account's history: enough for the alert rules' periods
# Each site's bucket (0-999) and a second draw for its age, from its location and directory, so
# that a rebuild, and the reset of the sites an alert pass moves, give the same rows.
BUCKET = "abs(hashtext(b.id::text || ':' || d.site_id::text)) %% 1000"
DRAW = "abs(hashtext(d.site_id::text || '/' || b.id::text)) %% 1000"
# Per mille: 4% In Progress and 1% Submitted past their directory's delay, 1% asking for action
# past the grace (6% late in all); within their delay: 10% In Progress, 5% Submitted, 2% asking
# for action; 3% Opted out, 3% Connect; the rest Synced. NEW_LATE is Synced until the alert
# pass makes it late (a sync's worth of new trouble, 1% of the sites).
LATE_SHARE = 0.06
NEW_LATE = (900, 910)
SITE_STATUS = """CASE
    WHEN {bucket} < 40 THEN 'In Progress' WHEN {bucket} < 50 THEN 'Submitted'
    WHEN {bucket} < 80 THEN 'Action Required' WHEN {bucket} < 180 THEN 'In Progress'
    WHEN {bucket} < 230 THEN 'Submitted' WHEN {bucket} < 260 THEN 'Opted out'
    WHEN {bucket} < 290 THEN 'Connect' ELSE 'Synced' END"""
SITE_SINCE = """now() - CASE
    WHEN {bucket} < 50 THEN make_interval(days => d.days + 1 + {draw} %% 90, hours => {draw} %% 24)
    WHEN {bucket} < 60 THEN make_interval(days => 4 + {draw} %% 30)
    WHEN {bucket} < 80 THEN make_interval(hours => {draw} %% 60)
    WHEN {bucket} < 230 THEN make_interval(hours => {draw} %% (d.days * 24))
    ELSE make_interval(days => {draw} %% 700) END"""


def _directories_sql() -> str:
    """The directories of the portal's default delays as a VALUES list (n, site_id, name,
    days): each location lists SITES_PER_LOCATION of them, in turn."""
    from history.delays import DEFAULT_DELAYS

    return ", ".join(f"({n}, {d.site_id}, '{d.name}', {d.days})"
                     for n, d in enumerate(DEFAULT_DELAYS.values()))


def due_refresh(reseller, *, missing_only: bool = False) -> tuple[float, int]:
    """(seconds, sites written) of `sites_due_refresh` over the whole account: the due moments
    of the sites the bench wrote in SQL, or the evening's check when nothing moved; with
    `missing_only`, what the end of a sync run does."""
    from history.delays import sites_due_refresh
    from portal.tenancy import tenant_scope

    with tenant_scope(reseller):
        began = time.perf_counter()
        written = sites_due_refresh(tenant=reseller, missing_only=missing_only)
        return time.perf_counter() - began, written


def build_sites(reseller) -> int:
    """SITES_PER_LOCATION directory sites per location, generated in SQL (see SITE_STATUS),
    and their due moments."""
    from django.db import connection

    from history.delays import DEFAULT_DELAYS
    from listings.models import ListingSite

    table = ListingSite._meta.db_table
    directories = len(DEFAULT_DELAYS)
    fill = {"bucket": BUCKET, "draw": DRAW}
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE reseller_id = %s",  # noqa: S608
                       [reseller.pk])
        cursor.execute("SET synchronous_commit = off")
        cursor.execute(f"""
            INSERT INTO {table} (reseller_id, business_id, site_id, site_name, status, errors,
                                 url, raw, last_seen_at, removed_at, status_since,
                                 previous_status)
            SELECT b.reseller_id, b.id, d.site_id, d.name, {SITE_STATUS.format(**fill)},
                   CASE WHEN {BUCKET} BETWEEN 50 AND 79
                        THEN '["Phone number does not match the directory''s records"]'::jsonb
                        ELSE '[]'::jsonb END,
                   'https://directory.example/' || b.remote_id, '{{}}'::jsonb, now(), NULL,
                   {SITE_SINCE.format(**fill)},
                   CASE WHEN {DRAW} %% 2 = 0 THEN NULL ELSE 'Submitted' END
            FROM accounts_business b
            CROSS JOIN (VALUES {_directories_sql()}) AS d(n, site_id, name, days)
            WHERE b.reseller_id = %s AND b.type = 'Business'
              AND ((d.n - b.id) %% {directories} + {directories}) %% {directories}
                  < {SITES_PER_LOCATION}
        """, [reseller.pk])  # noqa: S608 - table names from the models, figures from the code
        seconds, written = due_refresh(reseller)
        print(f"wrote the due moments of {written:,} sites in {seconds:.1f} s", file=sys.stderr)
        cursor.execute("SET synchronous_commit = on")
        # As autovacuum would leave them: the statistics of the new rows, and the visibility
        # map that lets the late sites' count read the index alone.
        cursor.execute(f"VACUUM ANALYZE {table}")
        cursor.execute("ANALYZE accounts_business")
    return ListingSite.unscoped.filter(reseller=reseller).count()


def new_late_sites(reseller, *, late: bool) -> dict:
    """The NEW_LATE bucket's sites made late In Progress (a sync's worth of new trouble), or
    back to Synced as built, their due moments cleared as the mirror clears them, then given
    again as at the end of a sync run. Returns the sites moved, and the seconds and sites of
    that end of the run."""
    from django.db import connection

    from listings.models import ListingSite

    table = ListingSite._meta.db_table
    fill = {"bucket": BUCKET, "draw": DRAW}
    if late:
        status = "'In Progress'"
        since = ("now() - make_interval(days => d.days + 1 + "
                 "{draw} %% 10)").format(**fill)
        moved = "s.status <> 'In Progress'"
    else:
        status, since = "'Synced'", SITE_SINCE.format(**fill)
        moved = "s.status <> 'Synced'"
    with connection.cursor() as cursor:
        cursor.execute(f"""
            UPDATE {table} s SET status = {status}, status_since = {since},
                                 previous_status = 'Synced', due_at = NULL
            FROM accounts_business b, (VALUES {_directories_sql()}) AS d(n, site_id, name, days)
            WHERE s.reseller_id = %s AND b.id = s.business_id AND d.site_id = s.site_id
              AND {BUCKET} >= {NEW_LATE[0]} AND {BUCKET} < {NEW_LATE[1]} AND {moved}
        """, [reseller.pk])  # noqa: S608
        moved = cursor.rowcount
    seconds, written = due_refresh(reseller, missing_only=True)
    return {"moved": moved, "run_end_due_seconds": round(seconds, 3),
            "run_end_due_written": written}


def ensure_sites(reseller, locations: int, rebuild: bool) -> int:
    from listings.models import ListingSite

    # Back as built: the alert pass of an earlier run made a bucket late.
    new_late_sites(reseller, late=False)
    count = ListingSite.unscoped.filter(reseller=reseller).count()
    if rebuild or count < locations * SITES_PER_LOCATION:
        began = time.perf_counter()
        count = build_sites(reseller)
        print(f"built {count:,} directory sites in {time.perf_counter() - began:.0f} s",
              file=sys.stderr)
    return count


def bench_members(reseller) -> dict:
    """An owner (alerts by the daily digest), a viewer (in the portal) and a manager limited to
    the largest enterprise, each a user of the bench."""
    from accounts.models import Business, Membership, Role, User

    brand = Business.unscoped.get(reseller=reseller, name="Brand 0")
    members = {}
    for key, role, limited_to in (("owner", Role.OWNER, None), ("viewer", Role.VIEWER, None),
                                  ("limited", Role.MANAGER, brand)):
        # The viewer is the one the trend reads' token belongs to.
        email = ("bench-history@example.com" if key == "viewer"
                 else f"bench-history-{key}@example.com")
        user, _ = User.objects.get_or_create(email=email)
        membership, _ = Membership.unscoped.update_or_create(
            reseller=reseller, user=user, defaults={"role": role, "limited_to": limited_to})
        members[key] = membership
    return members


def counted(fn) -> tuple[float, int, object]:
    """(seconds, SQL statements, result) of one call."""
    from django.db import connection

    statements = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        began = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - began
    return seconds, len(statements), result


def explain(queryset, label: str) -> None:
    """EXPLAIN ANALYZE of a queryset, to stderr."""
    from django.db import connection

    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    print(f"-- {label}\n{plan}\n", file=sys.stderr)


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


# -- the late-sites list --------------------------------------------------------------------------

LATE_PAGE = 50  # the page's size (history.ageing_views.PAGE_SIZE)


def late_reads(reseller, members: dict, iterations: int, show_plans: bool) -> dict:
    """The late-sites selector (a page of rows, the count) filtered and sorted as the page and
    the API allow, then the page and the API over HTTP."""
    from django.test import Client

    from accounts.models import Business, Membership, Role
    from accounts.tokens import api_token_create
    from history.ageing import late_sites
    from portal.tenancy import tenant_scope

    with tenant_scope(reseller):
        biggest = Business.objects.get(reseller=reseller, name="Brand 0")
        smallest = Business.objects.get(reseller=reseller, name=f"Brand {ENTERPRISES - 1}")
        _, token = api_token_create(tenant=reseller, actor=None, user=members["viewer"].user,
                                    name="bench late sites", role=Role.VIEWER)
    # The limited member of a small enterprise is only read, never saved.
    small_member = Membership(reseller=reseller, role=Role.MANAGER, limited_to=smallest)
    cases = {
        "first_page": {},
        "one_directory": {"site_id": 145},
        "action_required": {"status": "action_required"},
        "sorted_by_location": {"sort": "location"},
        "sorted_oldest_first": {"sort": "-age"},
        "limited_largest_enterprise": {"membership": members["limited"]},
        "limited_small_enterprise": {"membership": small_member},
        "within_largest_enterprise": {"within": biggest.remote_id},
        "search_a_location": {"search": "Shop 4242"},
    }
    reads = {}
    with tenant_scope(reseller):
        reads["total_late"] = late_sites(tenant=reseller).count()
        for name, kwargs in cases.items():
            if show_plans:
                rows = late_sites(tenant=reseller, **kwargs)
                # The ids of a page, then what the count counts (the page's rows are by id).
                explain(rows.late.order_by(*rows.order).values("pk")[:LATE_PAGE],
                        f"late sites, {name}: the page's ids")
                explain(rows.late.values("pk"), f"late sites, {name}: what the count counts")
            reads[f"{name}_page"] = measure(
                lambda kwargs=kwargs: late_sites(tenant=reseller, **kwargs)[0:LATE_PAGE],
                iterations)
            reads[f"{name}_count"] = measure(
                lambda kwargs=kwargs: late_sites(tenant=reseller, **kwargs).count(),
                iterations)
    pages = Client()
    pages.force_login(members["viewer"].user)
    limited = Client()
    limited.force_login(members["limited"].user)
    api = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    base = f"/t/{reseller.slug}/late-sites/"
    for name, client, url, extra in (
            ("http_page", pages, base, {}),
            ("http_page_one_directory_by_location", pages, f"{base}?site=145&sort=location",
             {}),
            ("http_page_limited", limited, base, {}),
            ("http_page_10", pages, f"{base}?page=10", {}),
            ("http_api", api, f"/api/v1/t/{reseller.slug}/late-sites/?limit={LATE_PAGE}",
             headers)):
        response = client.get(url, **extra)
        if response.status_code != 200:
            raise SystemExit(f"{url}: {response.status_code}")
        reads[name] = measure(lambda client=client, url=url, extra=extra: client.get(url, **extra),
                              iterations)
    return reads


# -- the alert rules after a sync -----------------------------------------------------------------

# The rules' periods (alerts.kinds defaults): the figures a week and a month ago.
ALERT_PERIODS = (7, 30)
# One location in MOVED_EVERY has its rating fall (and its one- and two-star reviews rise), one
# more its sites needing action rise; the first pass's groups, then the second's.
MOVED_EVERY = 200


def alert_figures(reseller, today, *, groups: tuple[int, int], reset: bool) -> None:
    """The locations' figures of today and of the periods' starts: the same (nothing moved,
    55 reviews, 4.58 stars) when `reset`; then, today, a fall to 3.98 stars with eleven more
    one-star reviews in the first group and two more sites needing action in the second."""
    from django.db import connection

    from history.models import BusinessDay

    table = BusinessDay._meta.db_table
    days = [today, *(today - timedelta(days=n) for n in ALERT_PERIODS)]
    with connection.cursor() as cursor:
        if reset:
            cursor.execute(f"""
                UPDATE {table} h SET reviews = 55, rating_1 = 1, rating_2 = 1, rating_3 = 3,
                                     rating_4 = 10, rating_5 = 40, need_updates = 1
                FROM accounts_business b
                WHERE h.reseller_id = %s AND h.day = ANY(%s) AND b.id = h.business_id
                  AND b.type = 'Business'
            """, [reseller.pk, days])  # noqa: S608
        falls, rises = groups
        cursor.execute(f"""
            UPDATE {table} h SET
                reviews = CASE WHEN h.business_id %% {MOVED_EVERY} = %s THEN 66
                               ELSE h.reviews END,
                rating_1 = CASE WHEN h.business_id %% {MOVED_EVERY} = %s THEN 12
                                ELSE h.rating_1 END,
                need_updates = CASE WHEN h.business_id %% {MOVED_EVERY} = %s THEN 3
                                    ELSE h.need_updates END
            FROM accounts_business b
            WHERE h.reseller_id = %s AND h.day = %s AND b.id = h.business_id
              AND b.type = 'Business' AND h.business_id %% {MOVED_EVERY} IN (%s, %s)
        """, [falls, falls, rises, reseller.pk, today, falls, rises])  # noqa: S608


def alert_passes(reseller, locations: int) -> dict:
    """alerts_after_run on the account four times: the first evaluation (every late site and
    moved figure is new), again with nothing new, after a sync's worth of new trouble (1% of
    the sites late, a few more locations' figures moved), and again with nothing new."""
    from django.db import connection
    from django.db.models import Count
    from django.utils import timezone

    from accounts.models import SyncRun
    from alerts import rules
    from alerts.models import Alert, Notification
    from alerts.selectors import alert_rule_map
    from alerts.sources import alerts_after_run
    from history.models import BusinessDay
    from history.services import history_day_record
    from portal.tenancy import tenant_scope

    today = timezone.localdate()
    with connection.cursor() as cursor:
        for model in (Notification, Alert):
            cursor.execute(f"DELETE FROM {model._meta.db_table} WHERE reseller_id = %s",  # noqa: S608
                           [reseller.pk])
    new_late_sites(reseller, late=False)
    with tenant_scope(reseller):
        if not BusinessDay.objects.filter(reseller=reseller, day=today).exists():
            history_day_record(tenant=reseller, day=today)
        run = SyncRun.objects.create(reseller=reseller, status=SyncRun.Status.SUCCEEDED,
                                     started_at=timezone.now(), finished_at=timezone.now())
    alert_figures(reseller, today, groups=(0, 1), reset=True)

    def evaluate():
        with tenant_scope(reseller):
            alerts_after_run(tenant=reseller, run_id=run.pk)

    def one_pass() -> dict:
        with tenant_scope(reseller):
            alerts_before = Alert.objects.filter(reseller=reseller).count()
            notifications_before = Notification.objects.filter(reseller=reseller).count()
        seconds, statements, _ = counted(evaluate)
        with tenant_scope(reseller):
            by_kind = dict(Alert.objects.filter(reseller=reseller).order_by()
                           .values_list("kind").annotate(n=Count("pk")))
            alerts_after = sum(by_kind.values())
            notifications = (Notification.objects.filter(reseller=reseller).count()
                             - notifications_before)
        return {"seconds": round(seconds, 2), "statements": statements,
                "alerts_raised": alerts_after - alerts_before, "notifications": notifications,
                "alerts_by_kind": by_kind}

    passes = {"first": one_pass(), "again": one_pass()}
    passes["new_late_sites"] = new_late_sites(reseller, late=True)
    alert_figures(reseller, today, groups=(2, 3), reset=False)
    passes["after_new_trouble"] = one_pass()
    passes["again_after"] = one_pass()
    # Where the time of a pass with nothing new goes, rule by rule.
    with tenant_scope(reseller):
        rule_map = alert_rule_map(tenant=reseller)
        parts = {"site_late": lambda: rules.site_late_findings(
                     tenant=reseller, rule=rule_map["site_late"]),
                 "key_rejected": lambda: rules.key_rejected_findings(tenant=reseller)}
        for kind, fn in (("needs_action_rising", rules.needs_action_findings),
                         ("rating_falling", rules.rating_falling_findings),
                         ("low_ratings_rising", rules.low_ratings_findings)):
            parts[kind] = (lambda fn=fn, kind=kind: fn(tenant=reseller, rule=rule_map[kind],
                                                        today=today))
        passes["rules"] = {}
        for kind, fn in parts.items():
            seconds, statements, found = counted(fn)
            passes["rules"][kind] = {"seconds": round(seconds, 2), "statements": statements,
                                     "findings": len(found)}
    new_late_sites(reseller, late=False)
    passes["locations"] = locations
    return passes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    env.add_common_arguments(parser)
    parser.set_defaults(database_url=DEFAULT_DATABASE_URL)
    parser.add_argument("--locations", type=int, default=50_000)
    parser.add_argument("--days", type=int, default=730)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS),
                        help="what to measure (default: all)")
    parser.add_argument("--explain", action="store_true",
                        help="print the late-sites queries' plans (EXPLAIN ANALYZE) to stderr")
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
    from listings.models import ListingSite, ListingStatusReport
    from portal.tenancy import tenant_scope

    report = env.Report(f"History at {args.locations:,} businesses, {args.days} days")
    report.figures["machine"] = env.machine()
    report.figures["cpu_loop_ms"] = env.cpu_loop_ms()
    reseller, small, rows = ensure_data(args.locations, args.days, args.rebuild)
    report.figures["business_days"] = rows
    today = timezone.localdate()

    # -- the daily write ----------------------------------------------------------------------
    if "write" in args.parts:
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
    if "reads" in args.parts:
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

    # -- the late-sites list ------------------------------------------------------------------
    if {"late", "alerts"} & set(args.parts):
        report.figures["sites"] = ensure_sites(reseller, args.locations, args.rebuild)
        members = bench_members(reseller)
    if "late" in args.parts:
        # The evening's check of every site's due moment (it writes none when nothing moved;
        # on sites built before the due moments existed, it writes them, as the migration does).
        seconds, written = due_refresh(reseller)
        report.figures["due_check"] = {"seconds": round(seconds, 2), "written": written}
        report.check("the evening's check of every site's due moment, nothing to mend",
                     round(seconds, 2), None, "s")
        if written:
            with connection.cursor() as cursor:
                cursor.execute(f"VACUUM ANALYZE {ListingSite._meta.db_table}")
            seconds, written = due_refresh(reseller)
            report.figures["due_check_again"] = {"seconds": round(seconds, 2),
                                                 "written": written}
        print(f"due moments checked: {report.figures}", file=sys.stderr)
        env.warn_if_busy()
        late = late_reads(reseller, members, args.iterations, args.explain)
        report.figures["late"] = late
        total = late.pop("total_late")
        report.figures["late_total"] = total
        print(f"late sites: {total:,} of {report.figures['sites']:,}", file=sys.stderr)
        for name, figures in late.items():
            report.check(f"late sites: {name} (median; {figures['queries']} queries)",
                         figures["median_ms"], MEDIAN_MS, "ms")

    # -- the alert rules after a sync ---------------------------------------------------------
    if "alerts" in args.parts:
        ensure_sites(small, args.locations // 10, args.rebuild)
        bench_members(small)
        passes = {"large": alert_passes(reseller, args.locations),
                  "small": alert_passes(small, args.locations // 10)}
        report.figures["alerts"] = passes
        print(f"alerts: {passes}", file=sys.stderr)
        large, small_passes = passes["large"], passes["small"]
        for key, label in (("first", "first evaluation, every cause new"),
                           ("again", "again, nothing new"),
                           ("after_new_trouble", "after a sync's worth of new trouble"),
                           ("again_after", "again, nothing new")):
            report.check(f"alerts after a run, {label} ({large[key]['alerts_raised']:,} "
                         f"raised; {large[key]['statements']} statements, "
                         f"{small_passes[key]['statements']} at {args.locations // 10:,} "
                         "locations)", large[key]["seconds"], None, "s")
        moved = large["new_late_sites"]
        report.check(f"the end of a sync run: due moments of the {moved['moved']:,} sites that "
                     f"changed status ({moved['run_end_due_written']:,} written)",
                     moved["run_end_due_seconds"], None, "s")
        for key in ("again", "again_after"):
            report.check(f"alerts raised again with nothing new ({key})",
                         large[key]["alerts_raised"] + small_passes[key]["alerts_raised"], 0,
                         "alerts")
            report.check(f"statements with nothing new ({key}) at {args.locations:,} "
                         f"locations, against {small_passes[key]['statements']} at "
                         f"{args.locations // 10:,}", large[key]["statements"],
                         small_passes[key]["statements"], "statements")
    report.print(args.json)
    sys.exit(0 if report.all_met else 1)


if __name__ == "__main__":
    main()

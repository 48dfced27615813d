"""Writing the history: one row per business and per day whatever the number of syncs, figures
equal to the mirror's, containers summed over their locations, a bounded number of statements,
the account's own figures, and the retention."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Business
from history import services, tasks
from history.models import AccountDay, BusinessDay
from listings.models import ListingStatusReport, SiteStatusChange
from portal.tenancy import tenant_scope
from reviews_app.models import ReviewCount, Survey, SurveyResponse
from tests.accounts.ui_factories import StatusReportFactory
from tests.factories import BusinessFactory, ResellerFactory
from tests.history.conftest import account_day, business_day, run_sync

TODAY = dt.date(2026, 6, 15)


def tree(reseller, locations: int, *, prefix: int = 500):
    """An enterprise of `locations` locations, each with a status report."""
    brand = BusinessFactory(reseller=reseller, remote_id=prefix, name="Brand", depth=0,
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path=f"/{prefix}/")
    shops = []
    for n in range(locations):
        shop = BusinessFactory(reseller=reseller, remote_id=prefix * 1000 + n, parent=brand,
                               depth=1, tree_path=f"/{prefix}/{prefix * 1000 + n}/")
        StatusReportFactory(business=shop, total_sites=10, synced_count=n % 11,
                            need_updates_count=1 if n % 2 else 0, needs_action=bool(n % 2))
        shops.append(shop)
    return brand, shops


@pytest.mark.django_db(transaction=True)
def test_one_row_per_business_per_day_whatever_the_number_of_syncs(sandbox_reseller):
    reseller = sandbox_reseller
    run_sync(reseller)
    run_sync(reseller, "listing_status")
    run_sync(reseller, "businesses", "listing_status")
    with tenant_scope(reseller):
        current = Business.objects.filter(reseller=reseller, removed_at__isnull=True)
        assert current.count() > 6  # the account's containers and its six locations
        days = BusinessDay.objects.filter(reseller=reseller)
        assert days.count() == current.count()
        assert set(days.values_list("day", flat=True)) == {timezone.localdate()}
        assert AccountDay.objects.filter(reseller=reseller).count() == 1

        # The day's figures are the mirror's.
        account = AccountDay.objects.get(reseller=reseller)
        reports = ListingStatusReport.objects.filter(reseller=reseller,
                                                     removed_at__isnull=True)
        assert account.reports == reports.count() == 6
        assert account.synced == reports.aggregate(n=Sum("synced_count"))["n"]
        assert account.total_sites == reports.aggregate(n=Sum("total_sites"))["n"]
        assert account.needs_action == reports.filter(needs_action=True).count()
        counts = ReviewCount.objects.get(reseller=reseller, remote_id=reseller.account_number)
        assert account.reviews == counts.review_count
        assert account.average_rating == counts.average_rating
        for report in reports:
            row = days.get(business=report.business)
            assert (row.locations, row.synced, row.need_updates, row.needs_action) == (
                1, report.synced_count, report.need_updates_count, int(report.needs_action))

        # Another day is another row per business.
        services.history_day_record(tenant=reseller, day=timezone.localdate()
                                    + dt.timedelta(days=1))
        assert days.count() == 2 * current.count()
        assert AccountDay.objects.filter(reseller=reseller).count() == 2


@pytest.mark.django_db
def test_containers_hold_the_sums_of_their_locations_and_their_own_review_counts():
    reseller = ResellerFactory()
    brand, shops = tree(reseller, 4)
    region = BusinessFactory(reseller=reseller, remote_id=900, name="Region", depth=0,
                             type=Business.Type.RESELLER, tree_path="/900/")
    sub = BusinessFactory(reseller=reseller, remote_id=901, name="Sub-brand", depth=1,
                          parent=region, type=Business.Type.ENTERPRISE_LOCATION,
                          tree_path="/900/901/")
    deep = BusinessFactory(reseller=reseller, remote_id=902, parent=sub, depth=2,
                           tree_path="/900/901/902/")
    StatusReportFactory(business=deep, total_sites=20, synced_count=5)
    # Review counts of one location only (a limited member synced it), and the sub-brand's own.
    ReviewCount.unscoped.create(reseller=reseller, remote_id=shops[0].remote_id,
                                review_count=7, count_by_rating={"5": 4, "4": 2, "0": 1})
    ReviewCount.unscoped.create(reseller=reseller, remote_id=901, review_count=30,
                                count_by_rating={"5": 10, "1": 20})
    with tenant_scope(reseller):
        recorded = services.history_day_record(tenant=reseller, day=TODAY)
        assert (recorded.locations, recorded.containers) == (5, 3)
        rows = {row.business_id: row for row in BusinessDay.objects.filter(day=TODAY)}
    brand_row = rows[brand.pk]
    assert brand_row.locations == 4
    assert brand_row.synced == sum(n % 11 for n in range(4)) == 6
    assert (brand_row.need_updates, brand_row.needs_action) == (2, 2)
    # The brand has no counts of its own: its locations' are added up (one has some).
    assert (brand_row.reviews, brand_row.by_rating) == (7, {1: 0, 2: 0, 3: 0, 4: 2, 5: 4})
    assert brand_row.average_rating == Decimal("4.67")  # rating 0 is no zero-star review
    assert rows[shops[1].pk].reviews is None
    # Sums go up every level; a container's own counts win over its locations'.
    assert (rows[region.pk].locations, rows[region.pk].total_sites) == (1, 20)
    assert rows[sub.pk].synced == rows[region.pk].synced == 5
    assert rows[sub.pk].reviews == 30 and rows[region.pk].reviews is None
    with tenant_scope(reseller):
        account = AccountDay.objects.get(day=TODAY)
    assert (account.locations, account.total_sites) == (5, 60)
    assert account.reviews is None  # no counts of the account itself were mirrored


@pytest.mark.django_db
def test_the_daily_write_costs_the_same_statements_for_few_or_many_businesses():
    few, many = ResellerFactory(), ResellerFactory()
    tree(few, 3, prefix=501)
    tree(many, 60, prefix=502)
    statements = []
    for reseller in (few, many):
        ReviewCount.unscoped.create(reseller=reseller, remote_id=reseller.account_number,
                                    review_count=3, count_by_rating={"5": 3})
        with tenant_scope(reseller), CaptureQueriesContext(connection) as captured:
            services.history_day_record(tenant=reseller, day=TODAY)
        statements.append(len(captured.captured_queries))
        with tenant_scope(reseller):
            assert BusinessDay.objects.count() == Business.objects.count()
    assert statements[0] == statements[1], statements
    assert statements[1] <= 16, statements


@pytest.mark.django_db
def test_a_second_write_of_the_day_rewrites_only_what_moved():
    reseller = ResellerFactory()
    brand, shops = tree(reseller, 2)
    with tenant_scope(reseller):
        services.history_day_record(tenant=reseller, day=TODAY)
        first = {row.business_id: row.recorded_at for row in BusinessDay.objects.all()}
        ListingStatusReport.objects.filter(business=shops[1]).update(synced_count=9)
        services.history_day_record(tenant=reseller, day=TODAY)
        rows = {row.business_id: row for row in BusinessDay.objects.all()}
    assert len(rows) == 3
    assert rows[shops[0].pk].recorded_at == first[shops[0].pk]  # unchanged: not written again
    assert rows[shops[1].pk].recorded_at > first[shops[1].pk]
    assert rows[shops[1].pk].synced == 9 and rows[brand.pk].synced == 9


@pytest.mark.django_db
def test_the_account_keeps_survey_scores_and_its_net_promoter_score():
    reseller = ResellerFactory()
    survey = Survey.unscoped.create(reseller=reseller, remote_id=1, name="Visit")

    def response(number, score, nps, days_ago=1, completed=True):
        answers = [{"questionType": "rating", "answer": "4"}]
        if nps is not None:
            answers.append({"questionType": "nps", "answer": str(nps)})
        SurveyResponse.unscoped.create(
            reseller=reseller, survey=survey, remote_id=number, overall_score=score,
            completed=completed, answers=answers,
            response_date=TODAY - dt.timedelta(days=days_ago))

    response(1, "90", 10)
    response(2, "70", 9)
    response(3, "80", 7)
    response(4, "", 3)  # no score: in the NPS, not in the average
    response(5, "60", None)  # no recommendation question: in the average only
    response(6, "10", 0, days_ago=45)  # outside the 30 days
    response(7, "10", 0, completed=False)
    with tenant_scope(reseller):
        services.history_day_record(tenant=reseller, day=TODAY)
        day = AccountDay.objects.get(day=TODAY)
    assert day.survey_responses == 5
    assert day.survey_score == Decimal("75.00")
    assert (day.nps_promoters, day.nps_passives, day.nps_detractors) == (2, 1, 1)
    assert day.nps == 25  # (2 - 1) / 4
    assert day.competitors is None and day.ranking_reviews is None


@pytest.mark.django_db
def test_days_and_status_changes_older_than_the_retention_are_pruned():
    reseller = ResellerFactory()
    shop = BusinessFactory(reseller=reseller)
    keep_from = TODAY - dt.timedelta(days=services.RETENTION_DAYS)
    assert services.RETENTION_DAYS >= 731  # two years at least
    for day in (keep_from - dt.timedelta(days=1), keep_from, TODAY):
        business_day(shop, day)
        account_day(reseller, day)
    old = timezone.make_aware(dt.datetime.combine(keep_from, dt.time()))
    for at in (old - dt.timedelta(minutes=1), old):
        SiteStatusChange.unscoped.create(reseller=reseller, business=shop, site_id=1,
                                         site_name="Maps", from_status="Submitted",
                                         to_status="Synced", at=at)
    other = ResellerFactory()
    business_day(BusinessFactory(reseller=other), keep_from - dt.timedelta(days=10))
    with tenant_scope(reseller):
        pruned = services.history_prune(tenant=reseller, today=TODAY)
        assert pruned == {"business_days": 1, "account_days": 1, "status_changes": 1}
        assert sorted(BusinessDay.objects.values_list("day", flat=True)) == [keep_from, TODAY]
        assert SiteStatusChange.objects.get().at == old
    assert BusinessDay.unscoped.filter(reseller=other).count() == 1  # another tenant's stay


@pytest.mark.django_db
def test_the_daily_task_records_the_day_and_prunes(monkeypatch, settings):
    reseller = ResellerFactory()
    tree(reseller, 2)
    business_day(BusinessFactory(reseller=reseller), dt.date(2000, 1, 1))
    queued = []
    monkeypatch.setattr(tasks.history_day_task, "delay", lambda **kw: queued.append(kw))
    assert tasks.history_daily_task() >= 1
    assert {"reseller_id": reseller.pk} in queued
    tasks.history_day_task(reseller_id=reseller.pk)
    with tenant_scope(reseller):
        assert set(BusinessDay.objects.values_list("day", flat=True)) == {
            timezone.localdate()}
    assert settings.CELERY_BEAT_SCHEDULE["history-daily"]["task"] == (
        "history.tasks.history_daily_task")


@pytest.mark.django_db
def test_a_failure_to_record_never_fails_the_sync_that_called_it(monkeypatch, caplog):
    reseller = ResellerFactory()

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "history_day_record", broken)
    with tenant_scope(reseller):
        services.history_after_run(tenant=reseller)
    assert "were not recorded" in caplog.text

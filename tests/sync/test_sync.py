"""Syncs against the embedded sandbox over real HTTP (a live server), checked row by row
against what the sandbox holds."""

from __future__ import annotations

import io
import json
import logging

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import Business, Reseller, SyncRun
from accounts.selectors import business_list
from listings.models import Answer, ListingSite, ListingStatusReport, Question
from listings.selectors import listing_health, listing_health_of_account
from media_app.models import MediaItem
from portal.tenancy import tenant_scope
from reviews_app.models import SurveyResponse
from reviews_app.services import survey_add
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from sync import services as syncing
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sync-test-partner-key-SECRET-0042"
MIRRORED = [Business, ListingStatusReport, ListingSite, MediaItem, Question, Answer,
            SurveyResponse]


@pytest.fixture(autouse=True)
def _fast_retries(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.SYNC_FETCH_THREADS = 2
    settings.DATA_DIR = tmp_path  # a fresh file rate limiter per test


def seed(locations=12, **faults):
    return seed_partner(api_key=KEY, locations=locations, seed=7, rate_limit=(1000, 1),
                        **faults)


@pytest.fixture
def reseller(live_server):
    seeded = seed()
    reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox",
                               rate_limit_count=1000)
    with tenant_scope(reseller):
        for survey_id in seeded["survey_ids"]:
            survey_add(tenant=reseller, actor=None, remote_id=survey_id)
    return reseller


def run_sync(reseller, *only):
    out = io.StringIO()
    args = [reseller.slug, "--json", *(["--only", *only] if only else [])]
    call_command("sync", *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def partner():
    return sandbox.PartnerAccount.objects.get(account_number__isnull=False, key_prefix=KEY[:8])


def snapshot(reseller):
    """Every mirrored row, without the columns that a sync is expected to touch."""
    ignored = {"last_seen_at", "id", "updated_at"}
    with tenant_scope(reseller):
        return {
            model.__name__: sorted(
                (tuple(sorted((k, json.dumps(v, sort_keys=True, default=str))
                              for k, v in row.items() if k not in ignored))
                 for row in model.objects.values()), key=str)
            for model in MIRRORED
        }


def test_full_sync_mirrors_exactly_what_the_sandbox_holds(reseller):
    outcome = run_sync(reseller)
    assert outcome["status"] == "succeeded", outcome
    account = partner()
    tree = sandbox.Business.objects.filter(partner=account).exclude(number=account.account_number)
    locations = tree.filter(type="Business")

    with tenant_scope(reseller):
        mirrored = Business.objects.filter(removed_at__isnull=True)
        assert set(mirrored.values_list("remote_id", flat=True)) == set(
            tree.values_list("number", flat=True))
        # Parents are linked at every level.
        for business in mirrored.exclude(parent=None).select_related("parent")[:50]:
            parent_number = tree.get(number=business.remote_id).parent.number
            assert business.parent.remote_id == parent_number
            assert business.tree_path.startswith(business.parent.tree_path)
        assert ListingStatusReport.objects.count() == locations.count()
        for location in locations:
            sites = ListingSite.objects.filter(business__remote_id=location.number)
            assert sites.count() == location.site_statuses.count()
            report = ListingStatusReport.objects.get(remote_id=location.number)
            assert report.total_sites == sites.count()
        assert set(MediaItem.objects.values_list("remote_id", flat=True)) == set(
            sandbox.MediaItem.objects.filter(partner=account).values_list("media_id", flat=True))
        assert set(Question.objects.values_list("remote_id", flat=True)) == set(
            sandbox.Question.objects.filter(partner=account)
            .values_list("question_id", flat=True))
        assert set(Answer.objects.values_list("remote_id", flat=True)) == set(
            sandbox.Answer.objects.filter(partner=account).values_list("answer_id", flat=True))
        assert SurveyResponse.objects.count() > 0
    assert outcome["counts"]["locations"] == locations.count()
    assert outcome["requests"] >= locations.count() * 3
    assert outcome["rate_limited"] == 0


def test_a_second_sync_changes_and_duplicates_nothing(reseller):
    first = run_sync(reseller)
    before = snapshot(reseller)
    second = run_sync(reseller)
    assert second["status"] == "succeeded"
    assert second["counts"] == first["counts"]
    assert snapshot(reseller) == before


def test_rows_the_provider_no_longer_returns_are_marked_removed_and_restored(reseller):
    run_sync(reseller)
    account = partner()
    gone = sandbox.Business.objects.filter(partner=account, type="Business").first()
    media = sandbox.MediaItem.objects.filter(partner=account).exclude(location=gone).first()
    media_values = {f.name: getattr(media, f.name) for f in media._meta.concrete_fields}
    gone.delete()
    media.delete()

    run_sync(reseller)
    with tenant_scope(reseller):
        assert Business.objects.get(remote_id=gone.number).removed_at is not None
        # Its status report went with it: the account's totals, summed from current reports
        # alone, are those of the current locations.
        assert ListingStatusReport.objects.get(remote_id=gone.number).removed_at is not None
        assert listing_health_of_account(tenant=reseller) == listing_health(
            locations=business_list(tenant=reseller))
        assert MediaItem.objects.get(remote_id=media.media_id).removed_at is not None
        assert Business.objects.filter(removed_at__isnull=True).count() == (
            sandbox.Business.objects.filter(partner=account).count() - 1)

    sandbox.MediaItem.objects.create(**media_values)
    run_sync(reseller)
    with tenant_scope(reseller):
        assert MediaItem.objects.get(remote_id=media.media_id).removed_at is None


def test_sync_completes_with_all_data_when_a_fifth_of_requests_fail(reseller):
    clean = run_sync(reseller)
    sandbox.PartnerAccount.objects.filter(pk=partner().pk).update(error_rate=0.2)
    flaky = run_sync(reseller)
    assert flaky["status"] == "succeeded", flaky["errors"]
    assert flaky["counts"] == clean["counts"]
    assert flaky["requests"] > clean["requests"]  # the failures were retried


def test_a_tight_rate_limit_is_respected_by_the_shared_limiter(reseller):
    sandbox.PartnerAccount.objects.filter(pk=partner().pk).update(
        rate_limit_count=25, rate_limit_window_seconds=1)
    Reseller.objects.filter(pk=reseller.pk).update(rate_limit_count=25, rate_limit_seconds=1)
    outcome = run_sync(reseller, "businesses", "listing_status", "media")
    assert outcome["status"] == "succeeded"
    assert outcome["requests"] > 25  # more than one window's worth, so the limiter had work
    assert outcome["rate_limited"] <= 1


def test_a_revoked_key_fails_clearly_and_touches_nothing(reseller):
    run_sync(reseller)
    before = snapshot(reseller)
    sandbox.PartnerAccount.objects.filter(pk=partner().pk).update(key_hash="0" * 64)
    with pytest.raises(CommandError, match="rejected the API key"):
        run_sync(reseller)
    reseller.refresh_from_db()
    assert reseller.status == Reseller.Status.KEY_REJECTED
    with tenant_scope(reseller):
        run = SyncRun.objects.first()
    assert run.status == SyncRun.Status.FAILED
    assert snapshot(reseller) == before


def test_a_refused_tree_walk_ends_the_run_failed_with_the_providers_reason(reseller):
    """The first call of a sync answered 4xx (here an account number the provider does not
    know): the run ends failed with the provider's words, it does not stay running."""
    Reseller.objects.filter(pk=reseller.pk).update(account_number=999_999_999)
    reseller.refresh_from_db()
    with pytest.raises(CommandError, match="refused the business tree"):
        run_sync(reseller)
    with tenant_scope(reseller):
        run = SyncRun.objects.get()
    assert run.status == SyncRun.Status.FAILED
    assert run.finished_at is not None
    assert "Business id is invalid" in run.errors[-1]
    with tenant_scope(reseller):  # a new sync is not blocked by the failed one
        syncing.sync_run_create(tenant=reseller, actor=None)


def test_a_sync_killed_half_way_and_resumed_loses_and_duplicates_nothing(reseller, settings):
    settings.SYNC_CHUNK_SIZE = 4
    with tenant_scope(reseller):
        run, _ = syncing.sync_run_create(tenant=reseller, actor=None)
        delivered = []

        class WorkerKilled(Exception):
            pass

        def dying_chunk(**kwargs):
            if delivered:
                raise WorkerKilled
            delivered.append(kwargs)
            syncing.sync_location_chunk(tenant=reseller, **kwargs)

        dying = syncing.Dispatcher(chunk=dying_chunk, account_resource=lambda **kw: None)
        with pytest.raises(WorkerKilled):
            syncing.sync_walk_and_dispatch(tenant=reseller, run_id=run.pk, dispatcher=dying)
        run.refresh_from_db()
        assert run.status == SyncRun.Status.RUNNING and 0 < run.done < run.total

        # The broker delivers the unacknowledged first step again, and a stale chunk of the
        # old attempt arrives late: it must not count twice.
        inline = syncing.Dispatcher(
            chunk=lambda **kw: syncing.sync_location_chunk(tenant=reseller, **kw),
            account_resource=lambda **kw: syncing.sync_account_resource(tenant=reseller, **kw))
        syncing.sync_walk_and_dispatch(tenant=reseller, run_id=run.pk, dispatcher=inline)
        syncing.sync_location_chunk(tenant=reseller, **delivered[0])
        run.refresh_from_db()
    assert run.status == SyncRun.Status.SUCCEEDED
    assert run.done == run.total and run.failed == 0
    after_resume = snapshot(reseller)
    run_sync(reseller)
    assert snapshot(reseller) == after_resume


def test_celery_tasks_run_a_whole_sync(reseller):
    from portal.celery import app

    app.conf.task_always_eager = True
    try:
        # One transaction, as in a request: the task is queued when it commits.
        with tenant_scope(reseller), transaction.atomic():
            run, created = syncing.sync_start(tenant=reseller, actor=None)
            again, created_again = syncing.sync_start(tenant=reseller, actor=None)
    finally:
        app.conf.task_always_eager = False
    assert created and not created_again and again.pk == run.pk
    with tenant_scope(reseller):
        run.refresh_from_db()
        assert run.status == SyncRun.Status.SUCCEEDED, run.errors
        assert run.counts["locations"] == Business.objects.filter(type="Business").count()


def test_queries_grow_with_pages_not_rows(live_server, settings):
    if connection.vendor != "postgresql":
        pytest.skip("on SQLite the live server shares the test's connection, so the sandbox's "
                    "statements cannot be told from the sync's")
    settings.SYNC_CHUNK_SIZE = 1000

    def queries_for(locations):
        seeded = seed(locations=locations)
        reseller = ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                                   provider_base_url=f"{live_server.url}/sandbox",
                                   rate_limit_count=1000)
        run_sync(reseller, "businesses")  # the locations first, outside the count
        with CaptureQueriesContext(connection) as captured:
            result = run_sync(reseller, "listing_status", "media", "qna")
        # The count means something only if every location was fetched and mirrored.
        assert result["status"] == "succeeded", result
        assert result["counts"]["status_reports"] == locations, result["counts"]
        ours = [q for q in captured.captured_queries if "sandbox_" not in q["sql"]]
        return len(ours)

    small, large = queries_for(10), queries_for(60)
    # Six times the locations, one chunk each: the same queries but for batch splits.
    assert large <= small + 6, (small, large)


def test_the_key_never_reaches_the_logs(reseller, caplog):
    caplog.set_level(logging.DEBUG)
    sandbox.PartnerAccount.objects.filter(pk=partner().pk).update(error_rate=0.2)
    run_sync(reseller)
    assert caplog.records, "the sync should log something"
    assert KEY not in caplog.text
    assert "SECRET-0042" not in caplog.text


def test_each_location_keeps_the_synced_share_of_its_report(reseller):
    run_sync(reseller, "businesses", "listing_status")
    from listings.models import ListingStatusReport

    reports = ListingStatusReport.unscoped.filter(reseller=reseller).select_related("business")
    assert reports.count() > 0
    for report in reports:
        expected = (report.synced_count * 100 / report.total_sites) if report.total_sites else None
        assert report.business.synced_percent == pytest.approx(expected)
        assert report.business.needs_action == report.needs_action
    containers = Business.unscoped.filter(reseller=reseller).exclude(type="Business")
    assert set(containers.values_list("synced_percent", flat=True)) == {None}


def test_a_run_of_a_subtree_through_its_tasks_counts_only_the_subtree(reseller, settings):
    from portal.celery import app

    settings.SYNC_CHUNK_SIZE = 1
    run_sync(reseller, "businesses")
    with tenant_scope(reseller):
        client = Business.objects.filter(type__startswith="Enterprise").first()
        under = Business.objects.filter(client.subtree_q(), type="Business").count()
    assert under >= 2, "the test needs a client of several chunks"
    app.conf.task_always_eager = True
    try:
        with tenant_scope(reseller), transaction.atomic():
            run, _ = syncing.sync_start(tenant=reseller, actor=None, scope=client)
    finally:
        app.conf.task_always_eager = False
    with tenant_scope(reseller):
        run.refresh_from_db()
    assert run.status == SyncRun.Status.SUCCEEDED, run.errors
    assert run.counts["locations"] == run.counts["status_reports"] == under
    assert "competitor_metrics" not in run.counts

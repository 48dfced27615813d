"""Sync run pages: starting a run, the history, one run's page and its progress JSON."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent, Role, SyncRun
from sync import services as syncing
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db


def make_run(reseller, **fields):
    fields.setdefault("resources", list(syncing.RESOURCES))
    return SyncRun.unscoped.create(reseller=reseller, **fields)


def list_url(reseller):
    return reverse("sync_run_list", args=[reseller.slug])


def detail_url(run, reseller=None):
    return reverse("sync_run_detail", args=[(reseller or run.reseller).slug, run.pk])


def progress_url(run, reseller=None):
    return reverse("sync_run_progress", args=[(reseller or run.reseller).slug, run.pk])



# -- access ------------------------------------------------------------------------------------


def test_anonymous_users_are_sent_to_login(client):
    run = make_run(ResellerFactory())
    for url in (list_url(run.reseller), detail_url(run), progress_url(run)):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("login"))
    assert client.post(list_url(run.reseller), {"resources": ["media"]}).status_code == 302
    assert SyncRun.unscoped.count() == 1


@pytest.mark.parametrize("role", [Role.VIEWER, Role.MANAGER, Role.OWNER])
def test_every_member_sees_the_history_and_a_run(member_client, role):
    client, membership = member_client(role)
    run = make_run(membership.reseller, status=SyncRun.Status.SUCCEEDED, total=3, done=3,
                   created_by=membership.user)
    page = client.get(list_url(membership.reseller))
    assert page.status_code == 200
    assert detail_url(run) in page.content.decode()
    assert client.get(detail_url(run)).status_code == 200
    assert client.get(progress_url(run)).status_code == 200


def test_a_viewer_gets_no_start_form_and_cannot_start(member_client):
    client, membership = member_client(Role.VIEWER)
    page = client.get(list_url(membership.reseller)).content.decode()
    assert "Start sync" not in page
    assert 'name="resources"' not in page
    response = client.post(list_url(membership.reseller), {"resources": ["media"]})
    assert response.status_code == 403
    assert not SyncRun.unscoped.exists()


def test_a_manager_gets_the_start_form_with_every_resource(member_client):
    client, membership = member_client(Role.MANAGER)
    page = client.get(list_url(membership.reseller)).content.decode()
    assert "Start sync" in page
    for resource in syncing.RESOURCES:
        assert f'value="{resource}"' in page


def test_another_tenants_run_is_404(member_client):
    client, membership = member_client(Role.OWNER)
    theirs = make_run(ResellerFactory())
    # Their run under my slug (the id exists, in another tenant) and under theirs (not a member).
    for url in (detail_url(theirs, membership.reseller), progress_url(theirs, membership.reseller),
                detail_url(theirs), progress_url(theirs)):
        assert client.get(url).status_code == 404, url


def test_a_missing_run_is_404_like_another_tenants(member_client):
    client, membership = member_client(Role.VIEWER)
    missing = reverse("sync_run_detail", args=[membership.reseller.slug, 999_999])
    assert client.get(missing).status_code == 404


# -- starting ----------------------------------------------------------------------------------


def test_starting_a_sync_creates_a_queued_run_and_shows_it(member_client):
    client, membership = member_client(Role.MANAGER)
    response = client.post(list_url(membership.reseller), {"resources": ["media", "qna"]})
    run = SyncRun.unscoped.get()
    assert response.status_code == 302
    assert response.url == detail_url(run)
    assert run.reseller == membership.reseller
    assert run.resources == ["media", "qna"]
    assert run.status == SyncRun.Status.QUEUED
    assert run.created_by == membership.user
    assert AuditEvent.unscoped.filter(reseller=membership.reseller, action="sync.started",
                                      object_id=str(run.pk)).exists()
    page = client.get(response.url).content.decode()
    assert f"Sync {run.pk} started." in page


def test_starting_again_while_active_reuses_the_run_and_links_to_it(member_client):
    client, membership = member_client(Role.MANAGER)
    client.post(list_url(membership.reseller), {"resources": ["media", "qna"]})
    first = SyncRun.unscoped.get()
    # Overlapping resources while the first is still queued: no second run.
    response = client.post(list_url(membership.reseller), {"resources": ["qna", "ai_search"]},
                           follow=True)
    assert SyncRun.unscoped.count() == 1
    assert response.redirect_chain[-1][0] == detail_url(first)
    page = response.content.decode()
    assert "already queued" in page
    assert f'<a href="{detail_url(first)}">sync {first.pk}</a>' in page


def test_a_sync_of_other_resources_can_run_alongside(member_client):
    client, membership = member_client(Role.MANAGER)
    client.post(list_url(membership.reseller), {"resources": ["media"]})
    client.post(list_url(membership.reseller), {"resources": ["ai_search"]})
    assert SyncRun.unscoped.count() == 2


def test_a_finished_run_does_not_block_a_new_one(member_client):
    client, membership = member_client(Role.MANAGER)
    make_run(membership.reseller, status=SyncRun.Status.SUCCEEDED)
    client.post(list_url(membership.reseller), {"resources": ["media"]})
    assert SyncRun.unscoped.count() == 2


def test_choosing_nothing_or_an_unknown_resource_is_a_form_error(member_client):
    client, membership = member_client(Role.MANAGER)
    response = client.post(list_url(membership.reseller), {})
    assert response.status_code == 400
    assert "Choose at least one thing to sync." in response.content.decode()
    response = client.post(list_url(membership.reseller), {"resources": ["passwords"]})
    assert response.status_code == 400
    assert "not one of the available choices" in response.content.decode()
    assert not SyncRun.unscoped.exists()


def test_a_subtree_member_syncs_only_their_subtree(member_client):
    reseller = ResellerFactory()
    root = BusinessFactory(reseller=reseller, type="Enterprise-Location", name="Client Co")
    client, membership = member_client(Role.MANAGER, reseller=reseller, limited_to=root)
    assert "Client Co" in client.get(list_url(reseller)).content.decode()
    client.post(list_url(reseller), {"resources": ["businesses", "media"]})
    assert SyncRun.unscoped.get().scope == root


# -- the run's page and its progress JSON ------------------------------------------------------


def test_progress_json_reflects_the_run(member_client):
    client, membership = member_client(Role.VIEWER)
    run = make_run(membership.reseller, status=SyncRun.Status.RUNNING, total=10, done=4,
                   failed=1, requests_made=37, rate_limited=2,
                   started_at=timezone.now() - datetime.timedelta(seconds=75))
    data = client.get(progress_url(run)).json()
    assert data["id"] == run.pk
    assert data["status"] == "running"
    assert data["finished"] is False
    assert data["percent"] == 50
    assert (data["total"], data["done"], data["failed"]) == (10, 4, 1)
    assert (data["requests_made"], data["rate_limited"]) == (37, 2)
    assert data["duration"] == "1 min 15 s"
    assert data["counts"] == [] and data["errors"] == []

    SyncRun.unscoped.filter(pk=run.pk).update(
        done=8, failed=2, status=SyncRun.Status.PARTIAL, finished_at=timezone.now(),
        counts={"media": 30, "businesses": 12, "zz_extra": 1},
        errors=[f"error {i}" for i in range(15)])
    response = client.get(progress_url(run))
    assert response["Cache-Control"] == "no-store"
    data = response.json()
    assert data["finished"] is True
    assert data["percent"] == 100
    assert data["badge"] == "warn"
    assert data["counts"] == [
        {"name": "businesses", "label": "Businesses", "value": 12},
        {"name": "media", "label": "Media items", "value": 30},
        {"name": "zz_extra", "label": "Zz extra", "value": 1},
    ]
    assert data["errors"] == [f"error {i}" for i in range(10)]
    assert data["error_count"] == 15


def test_an_unfinished_run_that_has_not_moved_is_reported_stale(member_client, settings):
    client, membership = member_client(Role.VIEWER)
    run = make_run(membership.reseller)
    assert client.get(progress_url(run)).json()["stale"] is False
    SyncRun.unscoped.filter(pk=run.pk).update(
        updated_at=timezone.now() - datetime.timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS
                                                       + 60))
    data = client.get(progress_url(run)).json()
    assert data["stale"] is True
    assert "Celery worker" in data["note"]


def test_the_detail_page_polls_through_a_static_script(member_client):
    client, membership = member_client(Role.VIEWER)
    run = make_run(membership.reseller, status=SyncRun.Status.RUNNING, total=4, done=1)
    page = client.get(detail_url(run)).content.decode()
    assert f'data-url="{progress_url(run)}"' in page
    assert 'data-finished="false"' in page
    assert 'aria-valuenow="25"' in page
    assert "accounts/sync.js" in page
    # No inline script (a strict CSP comes later): every <script> has a src.
    assert page.count("<script") == page.count("<script src=")


def test_a_finished_run_shows_its_counts_and_first_errors(member_client):
    client, membership = member_client(Role.VIEWER)
    run = make_run(membership.reseller, status=SyncRun.Status.PARTIAL, total=5, done=4,
                   failed=1, counts={"locations": 4, "questions": 9},
                   errors=["7000000001: location not found"], finished_at=timezone.now())
    page = client.get(detail_url(run)).content.decode()
    assert 'data-finished="true"' in page
    assert "Finished with errors" in page
    assert "<td>Questions</td><td>9</td>" in page
    assert "7000000001: location not found" in page


# -- the history -------------------------------------------------------------------------------


def test_the_history_shows_newest_first_with_who_and_what(member_client):
    client, membership = member_client(Role.VIEWER)
    starter = MembershipFactory(reseller=membership.reseller).user
    older = make_run(membership.reseller, status=SyncRun.Status.FAILED,
                     created_at=timezone.now() - datetime.timedelta(hours=2))
    newer = make_run(membership.reseller, status=SyncRun.Status.SUCCEEDED, created_by=starter,
                     resources=["media"], requests_made=123, rate_limited=7, total=3, done=3)
    make_run(ResellerFactory(), resources=["qna"])  # another tenant's: not listed
    page = client.get(list_url(membership.reseller)).content.decode()
    assert page.index(detail_url(newer)) < page.index(detail_url(older))
    assert starter.email in page
    assert "<td>123</td>" in page and "<td>7</td>" in page
    assert "3 / 3" in page
    assert '<span class="badge bad">Failed</span>' in page
    assert '<span class="badge ok">Succeeded</span>' in page
    assert "Questions and answers" not in page


def test_the_history_is_paginated(member_client):
    client, membership = member_client(Role.VIEWER)
    runs = [make_run(membership.reseller, status=SyncRun.Status.SUCCEEDED) for _ in range(30)]
    first = client.get(list_url(membership.reseller)).content.decode()
    second = client.get(list_url(membership.reseller) + "?page=2").content.decode()
    assert "Page 1 of 2" in first
    assert detail_url(runs[-1]) in first and detail_url(runs[0]) not in first
    assert detail_url(runs[0]) in second


def _count_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


HISTORY_QUERIES = 7  # session, user, membership, count, runs with who and scope, switcher, bell


def test_the_history_query_count_is_pinned(member_client):
    client, membership = member_client(Role.VIEWER)
    url = list_url(membership.reseller)
    make_run(membership.reseller, created_by=membership.user)
    few = _count_queries(client, url)
    for _ in range(24):
        starter = MembershipFactory(reseller=membership.reseller).user
        scope = BusinessFactory(reseller=membership.reseller)
        make_run(membership.reseller, created_by=starter, scope=scope)
    many = _count_queries(client, url)
    assert few == many == HISTORY_QUERIES

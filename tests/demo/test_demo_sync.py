"""`manage.py demo_sync`: a restarted demo is not synced again, and a first sync stopped with the
demo does not block the next one."""

import io
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from accounts.models import Reseller, SyncRun
from demo.management.commands.demo_setup import DEMO_SLUG
from demo.services import STOPPED_WITH_THE_DEMO, demo_sync_stop
from sync.services import sync_run_create
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db


def test_a_demo_synced_before_is_not_synced_again(live_server, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    port = urlsplit(live_server.url).port
    call_command("demo_setup", locations=3, port=port, stdout=io.StringIO())
    reseller = Reseller.objects.get(slug=DEMO_SLUG)
    SyncRun.unscoped.create(reseller=reseller, status=SyncRun.Status.SUCCEEDED)
    out = io.StringIO()
    call_command("demo_sync", port=port, stdout=out)
    assert "last sync" in out.getvalue()
    assert SyncRun.unscoped.filter(reseller=reseller).count() == 1


def test_a_run_stopped_with_the_demo_fails_with_its_reason_and_blocks_nothing(scope):
    reseller = ResellerFactory()
    other = ResellerFactory()
    scope(reseller)
    run, _ = sync_run_create(tenant=reseller, actor=None)
    SyncRun.unscoped.filter(pk=run.pk).update(status=SyncRun.Status.RUNNING)
    elsewhere = SyncRun.unscoped.create(reseller=other, status=SyncRun.Status.RUNNING)

    assert demo_sync_stop(tenant=reseller, run_ids=[run.pk, elsewhere.pk]) == 1
    run.refresh_from_db()
    assert run.status == SyncRun.Status.FAILED and run.errors == [STOPPED_WITH_THE_DEMO]
    assert SyncRun.unscoped.get(pk=elsewhere.pk).status == SyncRun.Status.RUNNING
    # The next first sync starts a run of its own instead of finding this one still running.
    _, created = sync_run_create(tenant=reseller, actor=None)
    assert created

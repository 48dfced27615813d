"""The broker down while users save: every save succeeds, nothing is lost, and the sweep sends
each change once the broker is back.

Celery is pointed at a Redis port where nothing listens, which is what a stopped broker looks
like to the web process; the saves go through the real pages.
"""

from __future__ import annotations

import io
import logging
import socket
import time
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import Role, SyncRun
from outbox.models import OutboxEntry
from portal.celery import app
from portal.tenancy import tenant_scope
from sync.services import sync_run_create
from tests.factories import MembershipFactory
from tests.listings.test_editor_support import browser_data
from tests.resilience.changes import duplicates, sandbox_deliveries, sweep, targets_of

pytestmark = pytest.mark.django_db(transaction=True)

Kind, State = OutboxEntry.Kind, OutboxEntry.State


def _forget_broker_connections() -> None:
    # The web process keeps its broker connections and producers in pools, found by URL:
    # dropping the references makes the next publish look the URL up again.
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def broker_down(monkeypatch):
    """CELERY_BROKER_URL pointing at a Redis port where nothing listens."""
    with socket.socket() as probe:  # a free port: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with monkeypatch.context() as patch:
        # Celery reads the variable before its own setting, each time it connects.
        patch.setenv("CELERY_BROKER_URL", f"redis://127.0.0.1:{port}/0")
        _forget_broker_connections()
        try:
            yield
        finally:
            _forget_broker_connections()


def edit_listing(client, business, name: str):
    url = reverse("listing_edit", args=[business.reseller.slug, business.remote_id])
    page = client.get(url)
    data = browser_data(page.context["editor"])
    data.update({"businessinfo-name": name, "base": str(page.context["base"]),
                 "action": "send"})
    return client.post(url, data)


def hierarchy_form(*rows):
    data = {"levels-TOTAL_FORMS": str(len(rows)), "levels-INITIAL_FORMS": "0",
            "levels-MIN_NUM_FORMS": "0", "levels-MAX_NUM_FORMS": "1000"}
    for index, (name, value) in enumerate(rows):
        data[f"levels-{index}-level_name"] = name
        data[f"levels-{index}-level_value"] = value
    return data


@pytest.mark.slow
def test_saves_while_the_broker_is_down_succeed_and_are_sent_once_it_is_back(
        partner_reseller, client, caplog, monkeypatch, figures):
    reseller, seeded = partner_reseller("broker-down-partner-key", locations=4)
    # Q&A too: the portal deletes only questions it knows of.
    call_command("sync", reseller.slug, "--only", "businesses", "qna", stdout=io.StringIO(),
                 stderr=io.StringIO())
    to = targets_of(reseller, seeded)
    client.force_login(MembershipFactory(reseller=reseller, role=Role.MANAGER).user)
    slug = reseller.slug
    saves = {
        Kind.LISTING_CREATE: lambda: edit_listing(client, to.listed, "Broker Down Bistro"),
        Kind.MEDIA_ADD: lambda: client.post(
            reverse("business_media", args=[slug, to.other.remote_id]),
            {"url": "https://images.example.com/broker-down.png", "media_format": "PHOTO",
             "category": "TEAMS", "description": "Team"}),
        Kind.CUSTOM_FIELD_CREATE: lambda: client.post(
            reverse("custom_field_list", args=[slug]),
            {"field_name": "Broker Tier", "type": "TEXT"}),
        Kind.HIERARCHY_UPDATE: lambda: client.post(
            reverse("business_hierarchy", args=[slug, to.other.remote_id]),
            hierarchy_form(("Region", "South"), ("District", "S2"))),
        Kind.QNA_DELETE_ALL: lambda: client.post(
            reverse("qna_delete_confirm", args=[slug, to.asked.remote_id])),
        Kind.SUBSCRIBE: lambda: client.post(
            reverse("subscription_list", args=[slug]),
            {"webhook_url": "https://hooks.example.com/broker-down",
             "event_names": ["SURVEY_COMPLETED"], "emails": ""}),
        Kind.UNSUBSCRIBE: lambda: client.post(
            reverse("subscription_delete_confirm", args=[slug, to.removable.remote_id])),
        "sync": lambda: client.post(reverse("sync_run_list", args=[slug]),
                                    {"resources": ["media"]}),
    }

    statuses, slowest = {}, 0.0
    with broker_down(monkeypatch), caplog.at_level(logging.WARNING):
        for what, save in saves.items():
            started = time.monotonic()
            statuses[what] = save().status_code
            slowest = max(slowest, time.monotonic() - started)
    assert statuses == {what: 302 for what in saves}  # saved, and redirected as usual
    unqueued = [r for r in caplog.records if "could not queue" in r.getMessage()]
    assert len(unqueued) == len(saves)  # every task publish met the dead broker

    # Every change is stored, waiting; the sync says why it did not start instead of staying
    # queued (which would block the next one).
    rows = OutboxEntry.unscoped.filter(reseller=reseller)
    assert sorted(rows.values_list("kind", flat=True)) == sorted(Kind.values)
    assert set(rows.values_list("state", "attempts")) == {(State.PENDING, 0)}
    run = SyncRun.unscoped.get(reseller=reseller, resources=["media"])
    assert run.status == SyncRun.Status.FAILED
    assert "task queue is unavailable" in " ".join(run.errors)
    with tenant_scope(reseller):
        assert sync_run_create(tenant=reseller, actor=None, resources=["media"])[1]

    # The broker is back: the periodic sweep sends each change, once.
    assert sweep() == len(Kind.values)
    assert sweep() == 0
    assert set(rows.values_list("state", flat=True)) == {State.ACCEPTED}
    delivered = sandbox_deliveries(reseller)
    assert delivered == {kind: 1 for kind in Kind.values}
    figures.update(saves=len(saves),
                   http_500=sum(status >= 500 for status in statuses.values()),
                   queued=rows.count(), delivered=sum(delivered.values()),
                   duplicates=duplicates(delivered), slowest_save_s=round(slowest, 1))

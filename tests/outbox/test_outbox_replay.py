import io
import json

import pytest
from django.core.management import call_command

from outbox import services as outbox
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory

pytestmark = pytest.mark.django_db


def make_entry(business, state, kind=OutboxEntry.Kind.MEDIA_ADD):
    return OutboxEntry.unscoped.create(reseller=business.reseller, business=business, kind=kind,
                                       payload={"url": "https://x.example/a.jpg"}, state=state,
                                       attempts=8, summary=f"{kind} {state}")


def replay(reseller, *args):
    out = io.StringIO()
    call_command("outbox_replay", reseller.slug, *args, stdout=out)
    return json.loads(out.getvalue())


def test_replay_queues_failed_changes_only_of_its_reseller(monkeypatch,
                                                           django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(outbox, "_queue_send", lambda reseller_id, entry_id: sent.append(entry_id))
    business = BusinessFactory()
    failed = make_entry(business, OutboxEntry.State.FAILED)
    rejected = make_entry(business, OutboxEntry.State.REJECTED)
    accepted = make_entry(business, OutboxEntry.State.ACCEPTED)
    other_tenant = make_entry(BusinessFactory(), OutboxEntry.State.FAILED)

    assert replay(business.reseller, "--dry-run") == {
        "would_queue": [{"id": failed.pk, "kind": "media_add", "summary": failed.summary}]}
    assert OutboxEntry.unscoped.get(pk=failed.pk).state == OutboxEntry.State.FAILED

    with django_capture_on_commit_callbacks(execute=True):
        result = replay(business.reseller, "--include-rejected")
    assert {e["id"] for e in result["queued"]} == {failed.pk, rejected.pk}
    for entry in (failed, rejected):
        entry.refresh_from_db()
        assert (entry.state, entry.attempts) == (OutboxEntry.State.PENDING, 0)
    assert OutboxEntry.unscoped.get(pk=accepted.pk).state == OutboxEntry.State.ACCEPTED
    assert OutboxEntry.unscoped.get(pk=other_tenant.pk).state == OutboxEntry.State.FAILED
    assert sorted(sent) == sorted([failed.pk, rejected.pk])


def test_replay_filters_by_kind(monkeypatch):
    monkeypatch.setattr(outbox, "_queue_send", lambda *a: None)
    business = BusinessFactory()
    media = make_entry(business, OutboxEntry.State.FAILED)
    make_entry(business, OutboxEntry.State.FAILED, kind=OutboxEntry.Kind.HIERARCHY_UPDATE)
    result = replay(business.reseller, "--kind", "media_add")
    assert [e["id"] for e in result["queued"]] == [media.pk]

"""`manage.py demo_setup`: a demo tenant on the sandbox, live updates queued, safe to rerun."""

import io
import json

import pytest
from django.core.management import call_command

from accounts.models import Membership, Reseller
from events.models import EventReceiver
from outbox.models import OutboxEntry

pytestmark = pytest.mark.django_db


def run():
    out = io.StringIO()
    call_command("demo_setup", locations=4, port=8123, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_demo_setup_makes_the_tenant_and_queues_live_updates_once(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PORTAL_PUBLIC_URL = "http://127.0.0.1:8123"
    first = run()
    assert first["live_updates"] is True and first["sandbox_locations"] == 4
    reseller = Reseller.objects.get(slug=first["reseller"])
    assert reseller.provider_base_url == "http://127.0.0.1:8123/sandbox"
    assert Membership.unscoped.filter(reseller=reseller, role="owner").count() == 1
    receiver = EventReceiver.unscoped.get(reseller=reseller)
    subscribes = OutboxEntry.unscoped.filter(reseller=reseller, kind="subscribe")
    assert {e.payload["webhookUrl"] for e in subscribes} == {
        f"http://127.0.0.1:8123/hooks/provider/{receiver.public_id}/"}
    assert subscribes.count() == 2

    run()  # again: nothing new is queued
    assert OutboxEntry.unscoped.filter(reseller=reseller, kind="subscribe").count() == 2


def test_without_a_public_url_the_demo_runs_without_live_updates(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PORTAL_PUBLIC_URL = ""
    assert run()["live_updates"] is False
    assert not EventReceiver.unscoped.exists()

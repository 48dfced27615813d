"""Sending a bulk change against the sandbox over HTTP: waves in order, each waiting for the one
before; an unhealthy wave pauses; pause, resume, cancel; rollback; nothing sent twice when the
step that starts a wave dies half-way.

The workers are played by `deliver`: it sends the outbox's due rows and steps the moving
changes, as the send task, the bulk step task and their sweeps do."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from accounts.models import AuditEvent, Business, Role
from bulk import sending
from bulk.models import BulkChange, BulkChangeItem
from bulk.selectors import bulk_change_actions, bulk_change_progress
from bulk.services import bulk_change_create
from listings.models import ListingVersion
from listings.services import listing_status_refresh
from outbox.models import OutboxEntry
from outbox.services import outbox_due, outbox_send
from portal.tenancy import tenant_scope
from sandbox import models as sandbox
from tests.factories import BusinessFactory
from tests.live import connect_reseller, join_live_server_requests, mirror_enterprise

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "bulk-sending-key"
Item = BulkChangeItem.State


def day(number, start, end):
    return {"day": number, "isOpen": 1,
            "workingHours": [{"startHour": start * 3600, "endHour": end * 3600}]}


EARLY = {"additionalInfo": {"hoursOfOperations": [day(0, 7, 15)]}}
LATE = {"additionalInfo": {"hoursOfOperations": [day(0, 10, 20)]}}


@pytest.fixture(autouse=True)
def _fast(settings, tmp_path):
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path
    yield
    join_live_server_requests()


@pytest.fixture
def brand(live_server):
    """Five locations of the sandbox, mirrored as a sync leaves them."""
    reseller, seeded = connect_reseller(live_server, key=KEY, locations=5, seed=17)
    enterprise, _, _ = mirror_enterprise(reseller, seeded)
    locations = []
    for remote in sandbox.Business.objects.filter(number__in=seeded["location_numbers"]):
        found = Business.unscoped.filter(reseller=reseller, remote_id=remote.number).first()
        locations.append(found or BusinessFactory(
            reseller=reseller, remote_id=remote.number, name=remote.name, city=remote.city,
            state=remote.state, zip=remote.zip, address1=remote.address1, phone=remote.phone,
            country_code=remote.country_code, sub_locality=remote.sub_locality,
            tree_path=f"/{remote.number}/"))
    assert len(locations) == 5
    return reseller, enterprise, locations


def change_of(reseller, locations, set_=EARLY, **options):
    with tenant_scope(reseller):
        return bulk_change_create(
            tenant=reseller, actor=None, set=set_,
            businesses={"numbers": [location.remote_id for location in locations]},
            **{"waves": [2], "dry_run": True, **options})


def deliver(reseller, rounds: int = 1):
    """Send every due outbox row, then step every moving change; `rounds` times."""
    with tenant_scope(reseller):
        for _ in range(rounds):
            for entry_id in list(outbox_due(tenant=reseller).values_list("pk", flat=True)):
                outbox_send(tenant=reseller, entry_id=entry_id)
            for change_id in list(sending.bulk_changes_to_advance(tenant=reseller)):
                sending.bulk_change_advance(tenant=reseller, change_id=change_id)


def act(reseller, action, change):
    with tenant_scope(reseller):
        service = getattr(sending, f"bulk_change_{action}")
        return service(tenant=reseller, actor=None, change=change)


def states(change) -> dict[int, str]:
    return dict(BulkChangeItem.unscoped.filter(change=change).order_by("position")
                .values_list("business_number", "state"))


def by_wave(change) -> dict[int, list[int]]:
    waves: dict[int, list[int]] = {}
    for number, wave in BulkChangeItem.unscoped.filter(change=change).order_by("position") \
            .values_list("business_number", "wave"):
        waves.setdefault(wave, []).append(number)
    return waves


def hours_at_provider(number) -> list:
    listing = sandbox.Listing.objects.filter(location__number=number).first()
    return (listing.payload.get("additionalInfo") or {}).get("hoursOfOperations") \
        if listing else None


def submissions(number) -> int:
    return sandbox.ListingSubmission.objects.filter(location__number=number).count()


def progress(change):
    change.refresh_from_db()
    with tenant_scope(change.reseller):
        return bulk_change_progress(change=change)


def actions(change):
    with tenant_scope(change.reseller):
        return bulk_change_actions(change)


def test_waves_go_in_order_each_waiting_for_the_one_before(brand):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations)
    assert change.counts == {"selected": 5, "will_change": 5, "unchanged": 0, "invalid": 0}
    order = list(states(change))
    change = act(reseller, "apply", change)
    assert change.state == BulkChange.State.APPLYING
    assert by_wave(change) == {1: order[:2], None: order[2:]}
    # Nothing reaches the provider before the workers send, and wave 2 waits for wave 1.
    assert all(submissions(number) == 0 for number in order)
    with tenant_scope(reseller):
        sending.bulk_change_advance(tenant=reseller, change_id=change.pk)
    assert by_wave(change) == {1: order[:2], None: order[2:]}

    deliver(reseller)  # wave 1 answered; wave 2 starts
    assert [states(change)[n] for n in order[:2]] == [Item.ACCEPTED] * 2
    assert by_wave(change) == {1: order[:2], 2: order[2:4], None: order[4:]}
    assert progress(change)["current_wave"] == 2 and progress(change)["waves_total"] == 3
    deliver(reseller, rounds=2)
    change.refresh_from_db()
    assert change.state == BulkChange.State.DONE
    assert by_wave(change) == {1: order[:2], 2: order[2:4], 3: order[4:]}
    assert set(states(change).values()) == {Item.ACCEPTED}
    for number in order:
        assert hours_at_provider(number) == EARLY["additionalInfo"]["hoursOfOperations"]
        assert submissions(number) == 1
    # Each location's history names the bulk change it came from.
    versions = ListingVersion.unscoped.filter(reseller=reseller, bulk_items__change=change)
    assert versions.count() == 5
    assert all(v.accepted_at and f"Bulk change {change.pk}" in v.summary for v in versions)
    assert progress(change)["percent"] == 100
    assert actions(change) == ["rollback"]
    audited = list(AuditEvent.unscoped.filter(reseller=reseller, object_id=str(change.pk),
                                              action__startswith="bulk_change.")
                   .order_by("pk").values_list("action", flat=True))
    assert audited == ["bulk_change.dry_run", "bulk_change.applied", "bulk_change.finished"]


def test_a_refused_change_pauses_the_change_with_the_reason(brand):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations)
    order = list(states(change))
    # The second location is gone from the provider's account after the dry run.
    sandbox.Business.objects.filter(number=order[1]).delete()
    act(reseller, "apply", change)
    deliver(reseller)
    change.refresh_from_db()
    assert change.state == BulkChange.State.PAUSED
    assert "Wave 1 did not go well" in change.paused_reason
    assert "the provider refused 1" in change.paused_reason
    item = BulkChangeItem.unscoped.get(change=change, business_number=order[1])
    assert item.state == Item.REJECTED and "invalid" in item.note.lower()
    assert by_wave(change)[None] == order[2:]  # no later wave started
    assert actions(change) == ["resume", "cancel", "rollback"]
    event = AuditEvent.unscoped.get(reseller=reseller, action="bulk_change.paused")
    assert event.summary["wave"] == 1

    # Resuming goes past that wave, and it is not judged again.
    act(reseller, "resume", change)
    deliver(reseller, rounds=3)
    change.refresh_from_db()
    assert change.state == BulkChange.State.DONE
    assert [states(change)[n] for n in order[2:]] == [Item.ACCEPTED] * 3


def test_pause_then_resume_and_cancel(brand):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations, waves=[1])
    order = list(states(change))
    act(reseller, "apply", change)
    change = act(reseller, "pause", change)
    assert change.paused_reason == "Paused."
    deliver(reseller, rounds=2)  # the wave sent before the pause is still answered
    assert states(change)[order[0]] == Item.ACCEPTED
    assert by_wave(change) == {1: order[:1], None: order[1:]}
    with pytest.raises(Exception, match="cannot be paused"):
        act(reseller, "pause", change)

    act(reseller, "resume", change)
    deliver(reseller)
    assert by_wave(change)[3] == order[2:3]
    change = act(reseller, "cancel", change)
    deliver(reseller, rounds=2)
    assert change.state == BulkChange.State.CANCELLED
    found = states(change)
    assert [found[n] for n in order[:3]] == [Item.ACCEPTED] * 3
    assert [found[n] for n in order[3:]] == [Item.SKIPPED] * 2
    assert BulkChangeItem.unscoped.get(change=change, business_number=order[4]).note == \
        sending.CANCELLED
    assert all(submissions(n) == 0 for n in order[3:])


def test_rollback_sends_the_previous_versions_and_says_where_there_is_none(brand):
    reseller, enterprise, locations = brand
    first = change_of(reseller, locations, set_=LATE, waves=[5])
    order = list(states(first))
    act(reseller, "apply", first)
    deliver(reseller, rounds=2)
    first.refresh_from_db()
    assert first.state == BulkChange.State.DONE
    second = change_of(reseller, locations, set_=EARLY, waves=[5])
    act(reseller, "apply", second)
    deliver(reseller, rounds=2)
    assert all(hours_at_provider(n) == EARLY["additionalInfo"]["hoursOfOperations"]
               for n in order)

    second = act(reseller, "rollback", second)
    assert second.state == BulkChange.State.ROLLING_BACK
    deliver(reseller, rounds=2)
    second.refresh_from_db()
    assert second.state == BulkChange.State.ROLLED_BACK
    assert set(states(second).values()) == {Item.ROLLED_BACK}
    for number in order:
        assert hours_at_provider(number) == LATE["additionalInfo"]["hoursOfOperations"]
        assert submissions(number) == 3

    # The first change's locations had no accepted version before it: nothing to go back to.
    first = act(reseller, "rollback", first)
    deliver(reseller)
    items = BulkChangeItem.unscoped.filter(change=first)
    assert {item.rollback_state for item in items} == {BulkChangeItem.Rollback.IMPOSSIBLE}
    # (The second change was rolled back, so the listing holds version 3, not the first
    # change's: either reason leaves it as it is.)
    assert all(item.note for item in items)
    assert all(submissions(number) == 3 for number in order)


def test_rollback_without_an_earlier_version_says_so(brand):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations, waves=[5])
    act(reseller, "apply", change)
    deliver(reseller, rounds=2)
    act(reseller, "rollback", change)
    notes = set(BulkChangeItem.unscoped.filter(change=change).values_list("note", flat=True))
    assert notes == {sending.NO_EARLIER_VERSION}
    deliver(reseller)
    change.refresh_from_db()
    assert change.state == BulkChange.State.ROLLED_BACK
    assert not ListingVersion.unscoped.filter(summary__startswith="Rollback").exists()


def test_nothing_is_sent_twice_when_the_step_dies_mid_wave(brand, monkeypatch):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations, waves=[1, 3])
    order = list(states(change))
    act(reseller, "apply", change)
    real_submit = sending.listing_submit_many

    def dies_after_the_writes(**kwargs):
        real_submit(**kwargs)  # wave 2's versions and outbox rows are written, not committed
        raise SystemExit("the worker is killed")

    monkeypatch.setattr(sending, "listing_submit_many", dies_after_the_writes)
    with pytest.raises(SystemExit):
        deliver(reseller)  # wave 1 is answered; the step starting wave 2 dies
    assert by_wave(change) == {1: order[:1], None: order[1:]}  # none of wave 2 was kept
    assert not ListingVersion.unscoped.filter(business__remote_id__in=order[1:]).exists()
    monkeypatch.setattr(sending, "listing_submit_many", real_submit)
    deliver(reseller, rounds=3)  # the sweep steps it again
    change.refresh_from_db()
    assert change.state == BulkChange.State.DONE
    assert by_wave(change) == {1: order[:1], 2: order[1:4], 3: order[4:]}
    assert [submissions(n) for n in order] == [1] * 5
    assert OutboxEntry.unscoped.filter(reseller=reseller).count() == 5


def test_a_listing_changed_after_the_dry_run_is_skipped(brand):
    reseller, enterprise, locations = brand
    first = change_of(reseller, locations, set_=LATE, waves=[5])
    second = change_of(reseller, locations, set_=EARLY, waves=[5])  # measured before `first`
    act(reseller, "apply", first)
    deliver(reseller, rounds=2)
    act(reseller, "apply", second)
    found = BulkChangeItem.unscoped.filter(change=second)
    assert {item.state for item in found} == {Item.SKIPPED}
    assert all("changed after the dry run (version 1 was accepted)" in item.note
               for item in found)
    second.refresh_from_db()
    assert second.state == BulkChange.State.DONE


def refresh_statuses(reseller, locations):
    with tenant_scope(reseller):
        for business in locations:
            listing_status_refresh(tenant=reseller, actor=None, business=business)


def test_new_action_required_sites_beyond_the_threshold_pause(brand):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations, waves=[2], wait_for_statuses=True,
                       action_required_threshold=1)
    order = list(states(change))
    account = sandbox.PartnerAccount.objects.get(account_number=reseller.account_number)
    account.status_step_seconds = 0  # statuses reach their outcome at the next read
    account.save()
    sites = sandbox.SiteStatus.objects.filter(location__number__in=order)
    sites.update(status="Synced", outcome="Synced", errors=[], outcome_errors=[])
    first = [b for b in locations if b.remote_id == order[0]]
    wave = [b for b in locations if b.remote_id in order[:2]]
    refresh_statuses(reseller, wave)  # what the portal knew before the change
    act(reseller, "apply", change)
    deliver(reseller)  # wave 1 accepted: its statuses are asked for again; the wave waits
    # The change restarted the wave's sites; the provider will need two things fixed on the
    # first location's directories.
    sites.filter(location__number__in=order[:2]).update(outcome="Synced", outcome_errors=[])
    for site in sites.filter(location__number=order[0]).order_by("site_id")[:2]:
        site.outcome = "Action Required"
        site.outcome_errors = ["Verify the phone number"]
        site.save()
    change.refresh_from_db()
    assert change.state == BulkChange.State.APPLYING and change.wave_accepted_at is not None
    deliver(reseller)
    assert by_wave(change)[None] == order[2:]  # still waiting for the statuses
    refresh_statuses(reseller, first)
    deliver(reseller)
    assert by_wave(change)[None] == order[2:]  # the second location is not read again yet
    refresh_statuses(reseller, wave[1:] if wave[0] == first[0] else wave[:1])
    deliver(reseller)
    change.refresh_from_db()
    assert change.state == BulkChange.State.PAUSED, change.paused_reason
    assert "left 2 more directory site(s) needing action" in change.paused_reason
    assert "above 1" in change.paused_reason


def test_statuses_within_the_threshold_let_the_next_wave_go(brand):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations, waves=[2], wait_for_statuses=True,
                       action_required_threshold=0)
    order = list(states(change))
    account = sandbox.PartnerAccount.objects.get(account_number=reseller.account_number)
    account.status_step_seconds = 0
    account.save()
    act(reseller, "apply", change)
    deliver(reseller)
    sandbox.SiteStatus.objects.filter(location__number__in=order).update(
        outcome="Synced", outcome_errors=[])
    refresh_statuses(reseller, [b for b in locations if b.remote_id in order[:2]])
    deliver(reseller)
    assert by_wave(change)[2] == order[2:4]


def test_the_wait_for_statuses_gives_up_after_its_delay(brand, settings):
    reseller, enterprise, locations = brand
    settings.BULK_STATUS_WAIT_SECONDS = 0
    change = change_of(reseller, locations, waves=[2], wait_for_statuses=True)
    act(reseller, "apply", change)
    deliver(reseller, rounds=2)
    change.refresh_from_db()
    assert change.state == BulkChange.State.PAUSED
    assert "could not be read again within 0 minutes" in change.paused_reason


# -- through the API -----------------------------------------------------------------------------

def api(name, reseller, *args):
    return reverse(name, args=[reseller.slug, *args])


def test_the_api_sends_pauses_and_rolls_back(brand, api_member):
    reseller, enterprise, locations = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = client.post(api("api_bulk_change_list", reseller),
                         {"businesses": {"numbers": [n.remote_id for n in locations]}, "set": EARLY,
                          "waves": [2, 3], "dry_run": False}, format="json")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["state"] == "applying"
    assert body["progress"]["queued"] == 2 and body["progress"]["waves_total"] == 2
    assert body["actions"] == ["pause", "cancel"]
    change_id = body["id"]

    answer = client.post(api("api_bulk_change_pause", reseller, change_id))
    assert answer.status_code == 200 and answer.json()["state"] == "paused"
    answer = client.post(api("api_bulk_change_pause", reseller, change_id))
    assert answer.status_code == 409
    assert "cannot be paused" in answer.json()["message"]
    assert client.post(api("api_bulk_change_resume", reseller, change_id)).status_code == 200
    deliver(reseller, rounds=3)
    detail = client.get(api("api_bulk_change_detail", reseller, change_id)).json()
    assert detail["state"] == "done" and detail["progress"]["accepted"] == 5
    assert detail["current_wave"] == 2
    items = client.get(api("api_bulk_change_items", reseller, change_id)).json()["results"]
    assert {item["state"] for item in items} == {"accepted"}
    assert all(item["listing_version"] == 1 for item in items)

    answer = client.post(api("api_bulk_change_rollback", reseller, change_id))
    # No location had an earlier version: nothing to send back, so it is over at once.
    assert answer.status_code == 200 and answer.json()["state"] == "rolled_back"
    items = client.get(api("api_bulk_change_items", reseller, change_id)).json()["results"]
    assert {item["rollback_state"] for item in items} == {"impossible"}
    assert "nothing to go back to" in items[0]["note"]


def test_viewers_cannot_act_and_other_resellers_get_404(brand, api_member):
    reseller, enterprise, locations = brand
    change = change_of(reseller, locations)
    viewer, _ = api_member(Role.VIEWER, reseller=reseller)
    assert viewer.post(api("api_bulk_change_apply", reseller, change.pk)).status_code == 403
    stranger, membership = api_member(Role.OWNER)
    answer = stranger.post(api("api_bulk_change_apply", membership.reseller, change.pk))
    assert answer.status_code == 404
    change.refresh_from_db()
    assert change.state == BulkChange.State.DRY_RUN_DONE


def test_a_dry_run_with_nothing_to_change_cannot_be_sent(brand, api_member):
    reseller, enterprise, locations = brand
    first = change_of(reseller, locations, waves=[5])
    act(reseller, "apply", first)
    deliver(reseller, rounds=2)
    again = change_of(reseller, locations)
    assert again.counts["will_change"] == 0
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    answer = client.post(api("api_bulk_change_apply", reseller, again.pk))
    assert answer.status_code == 409
    assert json.dumps(answer.json()).count("nothing to send") == 1


def test_a_wave_is_queued_in_statements_that_do_not_grow_with_it():
    """A wave of hundreds becomes listing versions, outbox rows and audit events in a fixed
    number of statements, not a dozen per location (sending 10,000 would wait on them)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import ResellerFactory

    def statements(size: int) -> int:
        reseller = ResellerFactory()
        places = [BusinessFactory(reseller=reseller, remote_id=5000 + i, name=f"Place {i}",
                                  tree_path=f"/{5000 + i}/") for i in range(size)]
        with tenant_scope(reseller):
            change = bulk_change_create(
                tenant=reseller, actor=None, waves=[size], dry_run=True,
                businesses={"numbers": [place.remote_id for place in places]},
                set={"businessInfo": {"mainBusinessDescription": "Open every day."}})
            with CaptureQueriesContext(connection) as captured:
                sending.bulk_change_apply(tenant=reseller, actor=None, change=change)
        assert BulkChangeItem.unscoped.filter(change=change, state=Item.QUEUED).count() == size
        assert OutboxEntry.unscoped.filter(reseller=reseller).count() == size
        return len(captured.captured_queries)

    few, many = statements(5), statements(60)
    # The items' states go back in batches of the database's parameter limit (SQLite's is
    # low): a statement more, not sixty.
    assert few <= many <= few + 2, (few, many)
    assert few < 40


def test_answers_queue_one_step_while_it_waits_to_start(monkeypatch, db):
    """Every answer of a wave settles an outbox row; one step queued and not yet started sees
    them all, so the answers after the first queue nothing until that step starts."""
    from django.core.cache import cache

    from bulk import receivers
    from tests.factories import ResellerFactory

    reseller = ResellerFactory()
    entry = OutboxEntry(reseller=reseller, pk=1, kind=OutboxEntry.Kind.LISTING_CREATE)
    queued = []
    monkeypatch.setattr(receivers, "bulk_changes_of_entry", lambda entry: [41])
    monkeypatch.setattr(receivers.tasks.bulk_change_advance_task, "delay",
                        lambda **kwargs: queued.append(kwargs))
    cache.delete(sending.STEP_WAITING_KEY.format(change_id=41))

    for _ in range(5):
        receivers.outbox_entry_settled(sender=None, entry=entry)
    assert queued == [{"reseller_id": reseller.pk, "change_id": 41}]

    # The step starts (the change is not this reseller's: it finds nothing to do) and from
    # then on the next answer queues another step.
    with tenant_scope(reseller):
        assert sending.bulk_change_advance(tenant=reseller, change_id=41) is None
    receivers.outbox_entry_settled(sender=None, entry=entry)
    assert len(queued) == 2


def test_a_step_that_could_not_be_queued_leaves_no_mark(monkeypatch, db):
    from bulk import receivers
    from tests.factories import ResellerFactory

    reseller = ResellerFactory()
    monkeypatch.setattr(receivers, "bulk_changes_of_entry", lambda entry: [42])
    from django.core.cache import cache
    cache.delete(sending.STEP_WAITING_KEY.format(change_id=42))

    def broker_down(**kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(receivers.tasks.bulk_change_advance_task, "delay", broker_down)
    calls = []
    monkeypatch.setattr(receivers.logger, "warning", lambda *args, **kwargs: calls.append(args))
    receivers.outbox_entry_settled(sender=None, entry=OutboxEntry(
        reseller=reseller, pk=1, kind=OutboxEntry.Kind.LISTING_CREATE))
    assert calls, "the failed queueing is logged"
    # The mark is gone: the next answer (or the sweep) queues the step.
    assert sending.bulk_change_step_mark(change_id=42) is True


def test_the_progress_counts_an_answer_before_the_step_writes_it(brand):
    """During a large wave the step that writes answers onto the items waits behind the wave's
    sends: the progress reads the answers from the outbox meanwhile."""
    reseller, enterprise, locations = brand
    change = act(reseller, "apply", change_of(reseller, locations))
    first = progress(change)
    assert (first["queued"], first["accepted"], first["percent"]) == (2, 0, 0)
    with tenant_scope(reseller):
        for entry_id in list(outbox_due(tenant=reseller).values_list("pk", flat=True)):
            outbox_send(tenant=reseller, entry_id=entry_id)
    # No step has run: the items still say queued, the progress says what the provider said.
    assert set(states(change).values()) == {Item.QUEUED, Item.WILL_CHANGE}
    answered = progress(change)
    assert (answered["queued"], answered["accepted"], answered["percent"]) == (0, 2, 40)

"""Each rule fires once for its cause, reaches the members who may see it by their channel, and
is not raised again when it is evaluated again (as after the next sync)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import Reseller, SyncRun
from alerts import rules, services, sources
from alerts.kinds import Channel, Kind
from alerts.models import Alert, AlertRule, Notification
from events.models import ProviderEvent
from history.ageing import LateSite, late_sites
from history.delays import sites_due_refresh
from outbox.models import OutboxEntry
from tests.alerts.conftest import day_row, prefer, told

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


def evaluate(agency):
    return rules.alerts_evaluate(tenant=agency.reseller, today=TODAY)


def test_sites_needing_action_rising_fires_once_for_the_location(agency, scope):
    scope(agency.reseller)
    day_row(agency.downtown, TODAY - timedelta(days=8), need_updates=1)
    day_row(agency.downtown, TODAY - timedelta(days=7), need_updates=1)
    day_row(agency.downtown, TODAY, need_updates=3)
    day_row(agency.other, TODAY - timedelta(days=7), need_updates=2)
    day_row(agency.other, TODAY, need_updates=2)  # no rise: nothing

    raised = evaluate(agency)

    assert [(a.kind, a.business) for a in raised] == [(Kind.NEEDS_ACTION_RISING,
                                                       agency.downtown)]
    alert = raised[0]
    assert alert.title == "2 more listing sites need action at Harbour Downtown"
    assert "3 of Harbour Downtown's listing sites need action, against 1" in alert.message
    assert alert.link == f"/t/{agency.reseller.slug}/businesses/101/"
    # The brand's member sees it, the member limited to the other location does not.
    assert told(alert) == {"owner@agency.example": Channel.DIGEST,
                           "manager@agency.example": Channel.DIGEST,
                           "viewer@agency.example": Channel.PORTAL,
                           "brand@agency.example": Channel.DIGEST}
    # Evaluated again (the next sync, the schedule, tomorrow): the same rise is not told again.
    assert evaluate(agency) == []
    assert rules.alerts_evaluate(tenant=agency.reseller,
                                 today=TODAY + timedelta(days=1)) == []
    assert Alert.unscoped.count() == 1


def test_a_rule_turned_off_or_with_a_higher_threshold_is_quiet(agency, scope):
    scope(agency.reseller)
    day_row(agency.downtown, TODAY - timedelta(days=7), need_updates=1)
    day_row(agency.downtown, TODAY, need_updates=3)
    AlertRule.unscoped.create(reseller=agency.reseller, kind=Kind.NEEDS_ACTION_RISING,
                              threshold=3, period_days=7)
    assert evaluate(agency) == []
    services.alert_rules_update(tenant=agency.reseller, actor=None, changes={
        Kind.NEEDS_ACTION_RISING: {"threshold": 2, "enabled": False}})
    assert evaluate(agency) == []
    services.alert_rules_update(tenant=agency.reseller, actor=None, changes={
        Kind.NEEDS_ACTION_RISING: {"enabled": True}})
    assert len(evaluate(agency)) == 1


def test_average_rating_falling_by_more_than_the_amount(agency, scope):
    scope(agency.reseller)
    month_ago = TODAY - timedelta(days=30)
    # 4.50 from 10 reviews; then four one-star reviews: 3.50.
    day_row(agency.downtown, month_ago, reviews=10, rating_1=0, rating_2=0, rating_3=0,
            rating_4=5, rating_5=5)
    day_row(agency.downtown, TODAY, reviews=14, rating_1=4, rating_2=0, rating_3=0,
            rating_4=5, rating_5=5)
    # A fall of 0.2 only, under the default 0.30.
    day_row(agency.other, month_ago, reviews=10, rating_4=5, rating_5=5)
    day_row(agency.other, TODAY, reviews=11, rating_3=1, rating_4=5, rating_5=5)

    raised = [a for a in evaluate(agency) if a.kind == Kind.RATING_FALLING]

    assert [a.business for a in raised] == [agency.downtown]
    assert raised[0].title == "Average rating down 1.00 at Harbour Downtown"
    assert "fell from 4.50 to 3.50 stars over 30 days" in raised[0].message
    assert raised[0].link == f"/t/{agency.reseller.slug}/businesses/101/reviews/"
    assert [a for a in evaluate(agency) if a.kind == Kind.RATING_FALLING] == []


def test_one_and_two_star_reviews_rising(agency, scope):
    scope(agency.reseller)
    week_ago = TODAY - timedelta(days=7)
    day_row(agency.other, week_ago, reviews=20, rating_1=1, rating_2=1, rating_5=18)
    day_row(agency.other, TODAY, reviews=23, rating_1=2, rating_2=3, rating_5=18)

    raised = [a for a in evaluate(agency) if a.kind == Kind.LOW_RATINGS_RISING]

    assert [a.business for a in raised] == [agency.other]
    assert raised[0].title == "3 new one- and two-star reviews at Hill Cafe"
    # Outside the brand: the brand's member is not told; the other location's member is.
    assert set(told(raised[0])) == {"owner@agency.example", "manager@agency.example",
                                    "viewer@agency.example", "hill@agency.example"}
    assert [a for a in evaluate(agency) if a.kind == Kind.LOW_RATINGS_RISING] == []


def test_a_rejected_listing_change_is_told_once(agency, scope, django_capture_on_commit_callbacks):
    scope(agency.reseller)
    prefer(agency.manager, Kind.LISTING_REJECTED, Channel.EMAIL)
    prefer(agency.viewer, Kind.LISTING_REJECTED, Channel.OFF)
    entry = OutboxEntry.unscoped.create(
        reseller=agency.reseller, business=agency.downtown, kind=OutboxEntry.Kind.LISTING_CREATE,
        state=OutboxEntry.State.REJECTED, summary="Opening hours", provider_code=2511,
        provider_message="Cannot update business status when listing is already fixed.")

    with django_capture_on_commit_callbacks(execute=True):
        first = sources.listing_change_settled(tenant=agency.reseller, entry=entry)
        again = sources.listing_change_settled(tenant=agency.reseller, entry=entry)

    assert len(first) == 1 and again == []
    alert = first[0]
    assert alert.title == "Listing change rejected for Harbour Downtown"
    assert "(code 2511): Cannot update business status" in alert.message
    assert alert.link == f"/t/{agency.reseller.slug}/businesses/101/listing/"
    assert told(alert) == {"owner@agency.example": Channel.DIGEST,
                           "manager@agency.example": Channel.EMAIL,
                           "brand@agency.example": Channel.DIGEST}
    # The member who chose "at once" has their email, once; the others wait for the digest.
    assert [m.to for m in mail.outbox] == [["manager@agency.example"]]
    assert mail.outbox[0].subject == "Listing change rejected for Harbour Downtown"
    assert "/notifications/" in mail.outbox[0].body
    services.notifications_email_now(tenant=agency.reseller)
    assert len(mail.outbox) == 1


def test_an_accepted_change_or_another_kind_is_not_an_alert(agency, scope):
    scope(agency.reseller)
    for kind, state in ((OutboxEntry.Kind.LISTING_CREATE, OutboxEntry.State.ACCEPTED),
                        (OutboxEntry.Kind.MEDIA_ADD, OutboxEntry.State.REJECTED)):
        entry = OutboxEntry.unscoped.create(reseller=agency.reseller, business=agency.other,
                                            kind=kind, state=state)
        assert sources.listing_change_settled(tenant=agency.reseller, entry=entry) == []


def test_a_failed_run_of_a_subtree_reaches_the_members_covering_it(agency, scope):
    scope(agency.reseller)
    run = SyncRun.unscoped.create(reseller=agency.reseller, status=SyncRun.Status.FAILED,
                                  scope=agency.downtown, errors=["The provider timed out."])
    sources.alerts_after_run(tenant=agency.reseller, run_id=run.pk)
    sources.alerts_after_run(tenant=agency.reseller, run_id=run.pk)

    alert = Alert.unscoped.get(kind=Kind.SYNC_FAILED)
    assert alert.title == "A sync of Harbour Downtown failed"
    assert "The provider timed out." in alert.message
    assert alert.link == f"/t/{agency.reseller.slug}/sync/{run.pk}/"
    assert "brand@agency.example" in told(alert) and "hill@agency.example" not in told(alert)


def test_the_rejected_key_reaches_members_without_a_limit_once_per_key(
        agency, scope, django_capture_on_commit_callbacks):
    scope(agency.reseller)
    Reseller.objects.filter(pk=agency.reseller.pk).update(status=Reseller.Status.KEY_REJECTED)
    with django_capture_on_commit_callbacks(execute=True):
        evaluate(agency)
        evaluate(agency)
    alert = Alert.unscoped.get(kind=Kind.KEY_REJECTED)
    assert alert.business is None
    assert alert.link == f"/t/{agency.reseller.slug}/settings/"
    assert told(alert) == {"owner@agency.example": Channel.EMAIL,
                           "manager@agency.example": Channel.DIGEST,
                           "viewer@agency.example": Channel.PORTAL}
    # The owner's default for a rejected key is an email at once.
    assert [m.to for m in mail.outbox] == [["owner@agency.example"]]

    # A new key, rejected in its turn, is a new cause.
    reseller = Reseller.objects.get(pk=agency.reseller.pk)
    reseller.set_api_key("another-key-0002")
    reseller.save()
    evaluate(agency)
    assert Alert.unscoped.filter(kind=Kind.KEY_REJECTED).count() == 2


def test_a_failed_provider_event_is_told_once(agency, scope):
    scope(agency.reseller)
    event = ProviderEvent.unscoped.create(
        reseller=agency.reseller, dedupe_key="e1", event_name="LISTING_UPDATED",
        business=agency.other, business_remote_id=200, body="{}",
        state=ProviderEvent.State.FAILED, result="The provider answered 500.")
    sources.alert_provider_event_failed(tenant=agency.reseller, event=event)
    sources.alert_provider_event_failed(tenant=agency.reseller, event=event)
    alert = Alert.unscoped.get(kind=Kind.EVENT_FAILED)
    assert alert.title == "A provider event failed for Hill Cafe"
    assert alert.link == f"/t/{agency.reseller.slug}/events/{event.pk}/"
    processed = ProviderEvent.unscoped.create(
        reseller=agency.reseller, dedupe_key="e2", event_name="LISTING_UPDATED", body="{}",
        state=ProviderEvent.State.PROCESSED)
    sources.alert_provider_event_failed(tenant=agency.reseller, event=processed)
    assert Alert.unscoped.filter(kind=Kind.EVENT_FAILED).count() == 1


def test_a_late_site_is_told_once_per_status_it_is_late_in(agency, scope, monkeypatch):
    scope(agency.reseller)
    since = timezone.now() - timedelta(days=40)
    row = LateSite(business=agency.downtown, site_id=7, site_name="Maps Directory",
                   status="Submitted", since=since, since_is_lower_bound=False, age_days=40,
                   delay_days=14, delay_source="default", late_by_days=26, errors=[], url="")
    monkeypatch.setattr(rules, "late_sites", lambda **kwargs: [row])

    raised = [a for a in evaluate(agency) if a.kind == Kind.SITE_LATE]

    assert len(raised) == 1
    assert raised[0].title == "Maps Directory late for Harbour Downtown"
    assert "for 40 days, 26 days past the 14 days" in raised[0].message
    assert raised[0].link == f"/t/{agency.reseller.slug}/businesses/101/"
    assert [a for a in evaluate(agency) if a.kind == Kind.SITE_LATE] == []
    # The site moved on and is late again in a later status: a new cause.
    later = replace(row, since=since + timedelta(days=20), status="In Progress")
    monkeypatch.setattr(rules, "late_sites", lambda **kwargs: [later])
    assert len([a for a in evaluate(agency) if a.kind == Kind.SITE_LATE]) == 1


def test_late_sites_from_the_ageing_of_sites(agency, scope):
    """Against the ageing of sites itself: a site held far past any usual delay."""
    from listings.models import ListingSite

    scope(agency.reseller)
    ListingSite.unscoped.create(
        reseller=agency.reseller, business=agency.downtown, site_id=7, site_name="Maps",
        status="Submitted", url="https://maps.example/x", last_seen_at=timezone.now(),
        status_since=timezone.now() - timedelta(days=400))
    sites_due_refresh(tenant=agency.reseller)  # as the end of a sync run would
    assert list(late_sites(tenant=agency.reseller, membership=None))
    raised = [a for a in evaluate(agency) if a.kind == Kind.SITE_LATE]
    assert [a.business for a in raised] == [agency.downtown]
    assert [a for a in evaluate(agency) if a.kind == Kind.SITE_LATE] == []


def test_the_digest_gathers_a_members_alerts_once_a_day(agency, scope, settings):
    scope(agency.reseller)
    for business, need in ((agency.downtown, 4), (agency.other, 5)):
        day_row(business, TODAY - timedelta(days=7), need_updates=1)
        day_row(business, TODAY, need_updates=need)
    evaluate(agency)
    assert mail.outbox == []
    Notification.unscoped.update(created_at=timezone.now() - timedelta(days=1, hours=1))

    sent = services.notifications_digest_send(tenant=agency.reseller)

    # The owner, the manager and each limited manager; the viewer follows in the portal only.
    assert sent == 4
    by_address = {m.to[0]: m for m in mail.outbox}
    assert set(by_address) == {"owner@agency.example", "manager@agency.example",
                               "brand@agency.example", "hill@agency.example"}
    owners = by_address["owner@agency.example"]
    assert owners.subject == "Harbour Agency: 2 alerts since your last digest"
    assert "Harbour Downtown" in owners.body and "Hill Cafe" in owners.body
    brand = by_address["brand@agency.example"]
    assert "Harbour Downtown" in brand.body and "Hill Cafe" not in brand.body
    assert services.notifications_digest_send(tenant=agency.reseller) == 0
    assert len(mail.outbox) == 4


def test_the_digest_waits_for_the_members_hour_in_their_time_zone(agency, scope):
    scope(agency.reseller)
    user = agency.owner.user
    user.time_zone = "America/New_York"
    user.save()
    day_row(agency.other, TODAY - timedelta(days=7), need_updates=1)
    day_row(agency.other, TODAY, need_updates=4)
    evaluate(agency)
    Notification.unscoped.exclude(membership=agency.owner).update(emailed_at=timezone.now())
    made = Notification.unscoped.get(membership=agency.owner).created_at
    next_digest = services.last_digest_moment(user, made) + timedelta(days=1)
    local = next_digest.astimezone(ZoneInfo("America/New_York"))
    assert (local.hour, local.minute) == (services.DIGEST_HOUR, 0)

    assert services.notifications_digest_send(
        tenant=agency.reseller, now=next_digest - timedelta(minutes=1)) == 0
    assert services.notifications_digest_send(tenant=agency.reseller, now=next_digest) == 1
    assert [m.to for m in mail.outbox] == [["owner@agency.example"]]


def test_amount_must_be_a_number_of_stars(agency, scope):
    scope(agency.reseller)
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as caught:
        services.alert_rules_update(tenant=agency.reseller, actor=None, changes={
            Kind.RATING_FALLING: {"amount": Decimal("9")},
            Kind.SYNC_FAILED: {"period_days": 3}})
    assert set(caught.value.message_dict) == {"rating_falling.amount",
                                              "sync_failed.period_days"}

"""The alerts API and pages: your notifications (a limited member's of their subtree only),
marking them read, your channels, the rules (owners write, managers read), 404 across
resellers, 400 naming the fields; the bell's count, opening a notification."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent, Role
from alerts.kinds import Channel, Kind
from alerts.models import Alert, AlertRule, Notification, NotificationPreference
from alerts.rules import alerts_evaluate
from tests.alerts.conftest import day_row
from tests.factories import MembershipFactory, ResellerFactory, token_client

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


@pytest.fixture
def alerted(agency, scope):
    """One alert of each location: a rise of sites needing action."""
    scope(agency.reseller)
    for business in (agency.downtown, agency.other):
        day_row(business, TODAY - timedelta(days=7), need_updates=0)
        day_row(business, TODAY, need_updates=2)
    alerts_evaluate(tenant=agency.reseller, today=TODAY)
    return agency


def api(agency, membership, name, *args):
    return token_client(membership), reverse(name, args=[agency.reseller.slug, *args])


def test_the_list_is_the_members_own_and_of_their_subtree(alerted):
    client, url = api(alerted, alerted.manager, "api_notification_list")
    body = client.get(url).json()
    assert body["count"] == 2
    first = body["results"][0]
    assert first["kind"] == Kind.NEEDS_ACTION_RISING and first["unread"] is True
    assert first["location"]["business_number"] in (101, 200)
    assert first["link"].startswith(f"/t/{alerted.reseller.slug}/businesses/")

    client, url = api(alerted, alerted.limited, "api_notification_list")
    body = client.get(url).json()
    assert [r["location"]["name"] for r in body["results"]] == ["Harbour Downtown"]


def test_read_one_and_all_and_filter_unread(alerted):
    client, url = api(alerted, alerted.viewer, "api_notification_list")
    mine = Notification.unscoped.filter(membership=alerted.viewer).order_by("pk")
    read_url = reverse("api_notification_read", args=[alerted.reseller.slug, mine[0].pk])
    response = client.post(read_url)
    assert response.status_code == 200 and response.json()["unread"] is False
    assert AuditEvent.unscoped.filter(action="notification.read").count() == 1
    assert client.get(url, {"unread": "true"}).json()["count"] == 1

    # Another member's notification is not found, nor one of another reseller.
    theirs = Notification.unscoped.filter(membership=alerted.owner).first()
    assert client.post(reverse("api_notification_read", args=[alerted.reseller.slug,
                                                              theirs.pk])).status_code == 404
    stranger = MembershipFactory(role=Role.OWNER, reseller=ResellerFactory())
    other = token_client(stranger)
    assert other.get(reverse("api_notification_list",
                             args=[alerted.reseller.slug])).status_code == 404
    assert other.post(read_url).status_code == 404

    all_url = reverse("api_notification_read_all", args=[alerted.reseller.slug])
    assert client.post(all_url, {}, format="json").json() == {"marked": 1}
    assert client.get(url, {"unread": "true"}).json()["count"] == 0


def test_bad_parameters_and_fields_are_named(alerted):
    client, url = api(alerted, alerted.manager, "api_notification_list")
    response = client.get(url, {"colour": "red"})
    assert response.status_code == 400 and set(response.json()["fields"]) == {"colour"}
    response = client.get(url, {"kind": "nonsense", "unread": "maybe"})
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"kind", "unread"}
    response = client.post(reverse("api_notification_read_all", args=[alerted.reseller.slug]),
                           {"everything": True}, format="json")
    assert response.status_code == 400 and "everything" in response.json()["fields"]


def test_preferences_are_read_and_changed_by_the_member(alerted):
    client, url = api(alerted, alerted.viewer, "api_notification_preferences")
    assert client.get(url).json()[Kind.SYNC_FAILED] == Channel.PORTAL
    response = client.patch(url, {Kind.SYNC_FAILED: "email"}, format="json")
    assert response.status_code == 200 and response.json()[Kind.SYNC_FAILED] == Channel.EMAIL
    assert NotificationPreference.unscoped.get(membership=alerted.viewer).channel == "email"
    assert AuditEvent.unscoped.filter(action="notification_preferences.updated").exists()
    response = client.patch(url, {"volume": 3}, format="json")
    assert response.status_code == 400 and set(response.json()["fields"]) == {"volume"}
    response = client.patch(url, {Kind.SYNC_FAILED: "pigeon"}, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {Kind.SYNC_FAILED}


def test_rules_owners_write_managers_read_limited_members_neither(alerted):
    client, url = api(alerted, alerted.manager, "api_alert_rules")
    body = client.get(url).json()
    assert body[Kind.RATING_FALLING] == {"enabled": True, "amount": "0.30", "period_days": 30}
    assert body[Kind.SYNC_FAILED] == {"enabled": True}
    assert client.patch(url, {Kind.SYNC_FAILED: {"enabled": False}},
                        format="json").status_code == 403
    limited, url = api(alerted, alerted.limited, "api_alert_rules")
    assert limited.get(url).status_code == 403

    owner, url = api(alerted, alerted.owner, "api_alert_rules")
    response = owner.patch(url, {Kind.RATING_FALLING: {"amount": "0.50", "period_days": 14},
                                 Kind.SYNC_FAILED: {"enabled": False}}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()[Kind.RATING_FALLING]["amount"] == "0.50"
    assert not AlertRule.unscoped.get(kind=Kind.SYNC_FAILED).enabled
    assert AuditEvent.unscoped.filter(action="alert_rules.updated").exists()

    response = owner.patch(url, {Kind.SYNC_FAILED: {"period_days": 3},
                                 Kind.SITE_LATE: {"loud": True}}, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"sync_failed.period_days", "site_late.loud"}
    response = owner.patch(url, {Kind.RATING_FALLING: {"amount": "9.00", "period_days": 0}},
                           format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"rating_falling.amount",
                                              "rating_falling.period_days"}


def test_bell_list_and_opening_a_notification(alerted, client):
    client.force_login(alerted.manager.user)
    home = client.get(reverse("tenant_home", args=[alerted.reseller.slug]))
    html = home.content.decode()
    assert 'aria-label="Notifications, 2 unread"' in html

    page = client.get(reverse("notification_list", args=[alerted.reseller.slug]))
    assert page.status_code == 200
    assert "2 more listing sites need action at Harbour Downtown" in page.content.decode()

    notification = Notification.unscoped.filter(membership=alerted.manager,
                                                alert__business=alerted.downtown).get()
    response = client.get(reverse("notification_open",
                                  args=[alerted.reseller.slug, notification.pk]))
    assert response.status_code == 302
    assert response["Location"] == f"/t/{alerted.reseller.slug}/businesses/101/"
    notification.refresh_from_db()
    assert notification.read_at is not None
    html = client.get(reverse("tenant_home", args=[alerted.reseller.slug])).content.decode()
    assert 'aria-label="Notifications, 1 unread"' in html

    # Someone else's notification is not found.
    theirs = Notification.unscoped.filter(membership=alerted.owner).first()
    assert client.get(reverse("notification_open", args=[alerted.reseller.slug,
                                                         theirs.pk])).status_code == 404

    response = client.post(reverse("notification_list", args=[alerted.reseller.slug]))
    assert response.status_code == 302
    assert not Notification.unscoped.filter(membership=alerted.manager,
                                            read_at__isnull=True).exists()


def test_the_bell_counts_up_to_99_and_the_list_says_how_many(alerted, client):
    """Every page counts at most a hundred unread notifications for the bell ("99+"), however
    many there are; the notifications page says how many exactly."""
    alerts = Alert.unscoped.bulk_create([
        Alert(reseller=alerted.reseller, kind=Kind.SITE_LATE, cause=f"site:test:{n}",
              title=f"Site {n} late", message="", link="/", business=alerted.downtown)
        for n in range(120)])
    Notification.unscoped.bulk_create([
        Notification(reseller=alerted.reseller, alert=alert, membership=alerted.limited,
                     kind=alert.kind, channel=Channel.PORTAL) for alert in alerts])
    client.force_login(alerted.limited.user)
    with CaptureQueriesContext(connection) as page:
        html = client.get(reverse("tenant_home", args=[alerted.reseller.slug])).content.decode()
    assert 'aria-label="Notifications, more than 99 unread"' in html
    assert '<b class="badge bad">99+</b>' in html
    (bell,) = [q["sql"] for q in page.captured_queries if "alerts_notification" in q["sql"]]
    assert "LIMIT 100" in bell
    listed = client.get(reverse("notification_list", args=[alerted.reseller.slug]))
    assert "121 unread" in listed.content.decode()


def test_preferences_and_rules_pages(alerted, client):
    client.force_login(alerted.viewer.user)
    url = reverse("notification_preferences", args=[alerted.reseller.slug])
    assert client.get(url).status_code == 200
    response = client.post(url, {kind: Channel.OFF for kind in Kind.values})
    assert response.status_code == 302
    assert NotificationPreference.unscoped.filter(membership=alerted.viewer).count() == len(Kind)
    rules = reverse("alert_rules", args=[alerted.reseller.slug])
    assert client.get(rules).status_code == 403

    client.force_login(alerted.owner.user)
    page = client.get(rules)
    assert page.status_code == 200 and "Average rating falling" in page.content.decode()
    data = {}
    for form in page.context["rule_forms"]:
        for name, field in form.fields.items():
            value = form.initial.get(name)
            if name == "enabled":
                if value:
                    data[f"{form.kind}-{name}"] = "on"
            else:
                data[f"{form.kind}-{name}"] = "" if value is None else str(value)
    data[f"{Kind.LOW_RATINGS_RISING}-threshold"] = "5"
    assert client.post(rules, data).status_code == 302
    assert AlertRule.unscoped.get(kind=Kind.LOW_RATINGS_RISING).threshold == 5
    data[f"{Kind.LOW_RATINGS_RISING}-threshold"] = "0"
    response = client.post(rules, data)
    assert response.status_code == 400
    assert "A whole number from 1" in response.content.decode()

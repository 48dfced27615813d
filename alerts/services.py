"""Writes of alerts: raising them once per cause, delivering them to the members who follow
them, emailing them (at once or in the daily digest), and members' and owners' settings.

The sources call in from above (the end of a sync run, a provider event that failed) or through
the outbox's `entry_settled` signal; the rules over the history and the ageing of sites are
evaluated after each sync run and by the schedule (`alerts.rules`). An alert is raised at most
once per reseller, kind and cause (a unique row), and each member gets it at most once (a
unique notification); an email is claimed by setting its `emailed_at` before it is sent, so two
workers never send the same one.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.brand import brand_get
from accounts.brand_emails import brand_email, brand_email_render
from accounts.models import Business, Membership, Reseller, User
from accounts.services import audit_record
from alerts.kinds import ACCOUNT_WIDE, KINDS, Channel, Kind, default_channel
from alerts.models import Alert, AlertRule, Notification, NotificationPreference
from alerts.selectors import (
    alert_rule_map,
    notification_channels,
    notification_list,
    recipient_channels,
)

logger = logging.getLogger(__name__)

DIGEST_HOUR = getattr(settings, "ALERTS_DIGEST_HOUR", 8)
# Emails claimed per statement: a burst of alerts is sent in several passes.
EMAIL_BATCH = 500
# Causes per statement: a first evaluation may find thousands of late sites at once.
CAUSE_BATCH = 500
MAX_THRESHOLD = 10_000
MAX_PERIOD_DAYS = 365
MAX_AMOUNT = Decimal("4.00")


@dataclass
class Finding:
    """A cause worth telling: the alert it becomes if it was never raised."""

    kind: str
    cause: str
    title: str
    message: str
    link: str
    business: Business | None = None
    data: dict = field(default_factory=dict)


# -- raising and delivering ------------------------------------------------------------------


def alerts_raise(*, tenant: Reseller, findings: Iterable[Finding],
                 rules: dict[str, AlertRule] | None = None) -> list[Alert]:
    """Store the findings whose cause was never raised (and whose rule is on), and give each
    member who follows its kind and may see its location a notification. Returns the alerts
    raised now. A cause raised before, here or by a worker at the same time, is skipped."""
    rules = rules if rules is not None else alert_rule_map(tenant=tenant)
    by_kind: dict[str, dict[str, Finding]] = defaultdict(dict)
    for finding in findings:
        if rules[finding.kind].enabled:
            by_kind[finding.kind].setdefault(finding.cause[:200], finding)
    if not by_kind:
        return []
    raised: list[Alert] = []
    with transaction.atomic():
        for kind, found in by_kind.items():
            causes = list(found)
            known: set[str] = set()
            for start in range(0, len(causes), CAUSE_BATCH):
                known.update(Alert.objects.filter(kind=kind,
                                                  cause__in=causes[start:start + CAUSE_BATCH])
                             .values_list("cause", flat=True))
            new = [cause for cause in causes if cause not in known]
            if not new:
                continue
            now = timezone.now()
            Alert.objects.bulk_create(
                [Alert(reseller=tenant, kind=kind, cause=cause, business=found[cause].business,
                       title=found[cause].title[:300], message=found[cause].message,
                       link=found[cause].link[:500], data=found[cause].data, created_at=now)
                 for cause in new], ignore_conflicts=True, batch_size=CAUSE_BATCH)
            # Read back: a twin that raised the same cause at once is delivered by both, and
            # the unique notification keeps it once per member.
            for start in range(0, len(new), CAUSE_BATCH):
                raised += list(Alert.objects.filter(kind=kind,
                                                    cause__in=new[start:start + CAUSE_BATCH])
                               .select_related("business"))
        if raised:
            _deliver(tenant, raised)
            transaction.on_commit(lambda: _email_now_quietly(tenant))
    return raised


def _covers(membership: Membership, alert: Alert) -> bool:
    """Whether the member may see the alert: an account-wide one reaches members without a
    limit; one of a business, members whose subtree holds it."""
    limited_to = membership.limited_to
    if limited_to is None:
        return True
    if alert.business is None or alert.kind in ACCOUNT_WIDE:
        return False
    return alert.business.tree_path.startswith(limited_to.tree_path)


def _deliver(tenant: Reseller, alerts: list[Alert]) -> int:
    members, chosen = recipient_channels(tenant=tenant, kinds={a.kind for a in alerts})
    rows = []
    for alert in alerts:
        for membership in members:
            channel = chosen.get((membership.pk, alert.kind),
                                 default_channel(membership.role, alert.kind))
            if channel != Channel.OFF and _covers(membership, alert):
                rows.append(Notification(reseller=tenant, alert=alert, membership=membership,
                                         kind=alert.kind, created_at=alert.created_at,
                                         channel=channel))
    Notification.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
    return len(rows)


# -- email --------------------------------------------------------------------------------------


def _address(brand, path: str) -> str:
    """An address to open from an email: on the agency's own host when it has one."""
    base = f"https://{brand.host}" if brand.host else settings.PORTAL_PUBLIC_URL
    return f"{base.rstrip('/')}{path}" if base else path


def _claim(rows) -> list[Notification]:
    """Mark the rows as emailed before sending them, and keep only those this call marked."""
    ids = list(rows.values_list("pk", flat=True)[:EMAIL_BATCH])
    if not ids:
        return []
    stamp = timezone.now()
    Notification.objects.filter(pk__in=ids, emailed_at__isnull=True).update(emailed_at=stamp)
    return list(Notification.objects.filter(pk__in=ids, emailed_at=stamp)
                .select_related("alert", "alert__business", "membership__user")
                .order_by("membership_id", "created_at", "pk"))


def _release(notifications: list[Notification]) -> None:
    """An email that could not be sent goes back to the queue, for the next pass."""
    Notification.objects.filter(pk__in=[n.pk for n in notifications]).update(emailed_at=None)


def _item(tenant: Reseller, brand, notification: Notification) -> dict:
    alert = notification.alert
    return {"alert": alert, "location": alert.business.name if alert.business else "",
            "address": _address(brand, reverse("notification_open",
                                               args=[tenant.slug, notification.pk]))}


def notifications_email_now(*, tenant: Reseller) -> int:
    """Email every notification of the reseller whose member chose "at once" and that was not
    emailed yet, one email per alert. Returns how many were sent."""
    brand = brand_get(tenant=tenant)
    sent = 0
    while True:
        claimed = _claim(Notification.objects.filter(channel=Channel.EMAIL,
                                                     emailed_at__isnull=True)
                         .order_by("created_at", "pk"))
        if not claimed:
            return sent
        for notification in claimed:
            item = _item(tenant, brand, notification)
            _, text, html = brand_email_render(
                brand=brand, template="alerts/email_alert",
                context={"tenant": tenant, "item": item,
                         "user": notification.membership.user})
            try:
                brand_email(brand=brand, subject=f"{notification.alert.title}",
                            to=[notification.membership.user.email], text=text,
                            html=html).send()
            except Exception:  # noqa: BLE001 - the mail server is away: the next pass sends it
                logger.warning("alerts: the email of notification %s was not sent",
                               notification.pk, exc_info=True)
                _release([notification])
                return sent
            sent += 1


def _email_now_quietly(tenant: Reseller) -> None:
    try:
        notifications_email_now(tenant=tenant)
    except Exception:  # noqa: BLE001 - the alert is stored; the schedule emails it later
        logger.exception("alerts: emails of %s not sent; the schedule will", tenant.slug)


def _zone(user: User) -> ZoneInfo:
    try:
        return ZoneInfo(user.time_zone or settings.TIME_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(settings.TIME_ZONE)


def last_digest_moment(user: User, now: datetime | None = None) -> datetime:
    """The latest digest time (DIGEST_HOUR in the member's time zone) at or before `now`."""
    local = (now or timezone.now()).astimezone(_zone(user))
    moment = local.replace(hour=DIGEST_HOUR, minute=0, second=0, microsecond=0)
    return moment if moment <= local else moment - timedelta(days=1)


def notifications_digest_send(*, tenant: Reseller, now: datetime | None = None) -> int:
    """Each member's daily digest: the notifications of their digest channel made before their
    latest digest time and not emailed yet, in one email. Run every hour, it sends each member's
    at their own hour; a missed hour is caught up by the next run. Returns the emails sent."""
    now = now or timezone.now()
    pending = (Notification.objects.filter(channel=Channel.DIGEST, emailed_at__isnull=True)
               .order_by().values_list("membership_id", flat=True).distinct())
    members = Membership.objects.filter(pk__in=list(pending)).select_related("user")
    brand = brand_get(tenant=tenant)
    sent = 0
    for membership in members:
        due = Notification.objects.filter(
            membership=membership, channel=Channel.DIGEST, emailed_at__isnull=True,
            created_at__lte=last_digest_moment(membership.user, now)).order_by("created_at",
                                                                               "pk")
        claimed = _claim(due)
        if not claimed:
            continue
        items = [_item(tenant, brand, n) for n in claimed]
        _, text, html = brand_email_render(
            brand=brand, template="alerts/email_digest",
            context={"tenant": tenant, "items": items, "user": membership.user,
                     "list_address": _address(brand, reverse("notification_list",
                                                             args=[tenant.slug]))})
        count = len(items)
        subject = (f"{tenant.name}: {count} alert{'s' if count != 1 else ''} since your "
                   "last digest")
        try:
            brand_email(brand=brand, subject=subject, to=[membership.user.email], text=text,
                        html=html).send()
        except Exception:  # noqa: BLE001 - the mail server is away: the next hour sends it
            logger.warning("alerts: the digest of member %s was not sent", membership.pk,
                           exc_info=True)
            _release(claimed)
            continue
        sent += 1
    return sent


def page_path(name: str, *args) -> str:
    return reverse(name, args=args)


# -- settings -----------------------------------------------------------------------------------


def notification_preferences_update(*, tenant: Reseller, actor: User | None,
                                    membership: Membership,
                                    channels: dict[str, str]) -> dict[str, str]:
    """Set the member's channel of each kind given (a kind not given keeps its channel)."""
    errors = {}
    for kind, channel in channels.items():
        if kind not in Kind.values:
            errors[kind] = ValidationError("Not a kind of alert.", code="invalid")
        elif channel not in Channel.values:
            errors[kind] = ValidationError(
                f"Choose one of: {', '.join(Channel.values)}.", code="invalid_choice")
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        for kind, channel in channels.items():
            NotificationPreference.objects.update_or_create(
                reseller=tenant, membership=membership, kind=kind,
                defaults={"channel": channel})
        if channels:
            audit_record(tenant=tenant, actor=actor, action="notification_preferences.updated",
                         obj=membership, summary={"channels": channels})
    return notification_channels(membership=membership)


RULE_FIELDS = ("enabled", "threshold", "amount", "period_days")


def _rule_errors(kind: str, values: dict) -> dict[str, ValidationError]:
    info = KINDS[kind]
    errors = {}
    for name, value in values.items():
        key = f"{kind}.{name}"
        if name not in RULE_FIELDS:
            errors[key] = ValidationError("Not a setting of a rule.", code="invalid")
        elif name == "enabled":
            if not isinstance(value, bool):
                errors[key] = ValidationError("Must be true or false.", code="invalid")
        elif getattr(info, name) is None:
            errors[key] = ValidationError(f"“{Kind(kind).label}” has no such setting.",
                                          code="invalid")
        elif name == "amount":
            if not isinstance(value, Decimal) or not Decimal("0.01") <= value <= MAX_AMOUNT:
                errors[key] = ValidationError(f"Between 0.01 and {MAX_AMOUNT} stars.",
                                              code="invalid")
        else:
            low, high = (1, MAX_PERIOD_DAYS) if name == "period_days" else (
                1 if kind != Kind.SITE_LATE else 0, MAX_THRESHOLD)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                errors[key] = ValidationError(f"A whole number from {low} to {high}.",
                                              code="invalid")
    return errors


def alert_rules_update(*, tenant: Reseller, actor: User | None,
                       changes: dict[str, dict]) -> dict[str, AlertRule]:
    """Change the rules given (`{kind: {enabled, threshold, amount, period_days}}`), all or
    none; errors name `kind.setting`."""
    errors: dict[str, ValidationError] = {}
    for kind, values in changes.items():
        if kind not in Kind.values:
            errors[kind] = ValidationError("Not a kind of alert.", code="invalid")
        elif not isinstance(values, dict):
            errors[kind] = ValidationError("Give the settings as an object.", code="invalid")
        else:
            errors.update(_rule_errors(kind, values))
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        rules = alert_rule_map(tenant=tenant)
        for kind, values in changes.items():
            rule = rules[kind]
            for name, value in values.items():
                setattr(rule, name, value)
            rule.save()
        if changes:
            audit_record(tenant=tenant, actor=actor, action="alert_rules.updated", obj=tenant,
                         summary={kind: {name: str(value) for name, value in values.items()}
                                  for kind, values in changes.items()})
    return alert_rule_map(tenant=tenant)


# -- reading ------------------------------------------------------------------------------------


def notification_read(*, tenant: Reseller, actor: User | None,
                      notification: Notification) -> Notification:
    """Mark the member's notification read (once: a second time keeps the first time)."""
    if notification.read_at is None:
        now = timezone.now()
        Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(
            read_at=now)
        notification.read_at = now
        audit_record(tenant=tenant, actor=actor, action="notification.read", obj=notification,
                     summary={"alert": notification.alert_id})
    return notification


def notification_read_all(*, tenant: Reseller, actor: User | None, membership: Membership,
                          kind: str = "") -> int:
    """Mark every unread notification of the member read (of one kind if given)."""
    ids = list(notification_list(membership=membership, unread=True, kind=kind)
               .values_list("pk", flat=True))
    marked = Notification.objects.filter(pk__in=ids, read_at__isnull=True).update(
        read_at=timezone.now())
    if marked:
        audit_record(tenant=tenant, actor=actor, action="notification.read_all",
                     obj=membership, summary={"marked": marked, "kind": kind})
    return marked

"""Reads of alerts: a member's notifications and unread count, their channels, the rules."""

from __future__ import annotations

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet

from accounts.models import Membership, Reseller
from alerts.kinds import KINDS, Channel, Kind, default_channel
from alerts.models import AlertRule, Notification, NotificationPreference


def _visible(queryset: QuerySet, membership: Membership) -> QuerySet:
    """A limited member's notifications of their current subtree only: a limit narrowed since
    an alert was sent hides it too."""
    limited_to = membership.limited_to
    if limited_to is None:
        return queryset
    return queryset.filter(alert__business__tree_path__startswith=limited_to.tree_path)


def notification_list(*, membership: Membership, unread: bool | None = None,
                      kind: str = "") -> QuerySet[Notification]:
    """The member's notifications, unread first, newest first, with their alerts."""
    rows = Notification.objects.filter(membership=membership)
    if unread is not None:
        rows = rows.filter(read_at__isnull=unread)
    if kind:
        rows = rows.filter(kind=kind)
    unread_first = ExpressionWrapper(Q(read_at__isnull=True), output_field=BooleanField())
    return (_visible(rows, membership).select_related("alert", "alert__business")
            .order_by(unread_first.desc(), "-created_at", "-id"))


def notification_get(*, membership: Membership, pk: int) -> Notification | None:
    return _visible(Notification.objects.filter(membership=membership, pk=pk),
                    membership).select_related("alert").first()


def notification_unread_count(*, membership: Membership, at_most: int | None = None) -> int:
    """One query: how many of the member's notifications are unread, counted up to `at_most`
    when given (the bell of every page says "99+" beyond that, and a limited member's count
    joins every unread alert to its location: thousands after a sync that found many late
    sites)."""
    unread = _visible(Notification.objects.filter(membership=membership, read_at__isnull=True),
                      membership)
    return (unread.order_by()[:at_most] if at_most is not None else unread).count()


def notification_channels(*, membership: Membership) -> dict[str, str]:
    """The member's channel for every kind: their choice, else their role's default."""
    chosen = dict(NotificationPreference.objects.filter(membership=membership)
                  .values_list("kind", "channel"))
    return {kind: chosen.get(kind, default_channel(membership.role, kind)) for kind in Kind}


def recipient_channels(*, tenant: Reseller, kinds) -> tuple[list[Membership],
                                                            dict[tuple[int, str], str]]:
    """The reseller's members (with their limits) and their chosen channels of `kinds`."""
    members = list(Membership.objects.filter(reseller=tenant)
                   .select_related("user", "limited_to").order_by("pk"))
    chosen = {(membership_id, kind): channel for membership_id, kind, channel in
              NotificationPreference.objects.filter(kind__in=list(kinds))
              .values_list("membership_id", "kind", "channel")}
    return members, chosen


def alert_rule_map(*, tenant: Reseller) -> dict[str, AlertRule]:
    """Every kind's rule: the stored row, or the kind's defaults (on) when none was saved."""
    stored = {rule.kind: rule for rule in AlertRule.objects.filter(reseller=tenant)}
    return {kind: stored.get(kind) or AlertRule.default(reseller=tenant, kind=kind)
            for kind in KINDS}


def channel_label(channel: str) -> str:
    return Channel(channel).label

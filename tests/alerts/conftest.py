"""An agency with a small tree, members of every role (one limited to a brand), and helpers to
write known history and read who was told."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pytest
from django.utils import timezone

from accounts.models import Business, Membership, Reseller, Role
from alerts.kinds import Channel
from alerts.models import Notification, NotificationPreference
from history.models import BusinessDay
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, UserFactory


@dataclass
class Agency:
    reseller: Reseller
    brand: Business  # an enterprise
    downtown: Business  # a location of the brand
    other: Business  # a location outside the brand
    owner: Membership
    manager: Membership
    viewer: Membership
    limited: Membership  # a manager limited to the brand
    elsewhere: Membership  # a manager limited to the other location


@pytest.fixture
def agency(db) -> Agency:
    reseller = ResellerFactory(name="Harbour Agency")
    brand = BusinessFactory(reseller=reseller, remote_id=100, name="Harbour Burgers",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/100/")
    downtown = BusinessFactory(reseller=reseller, remote_id=101, name="Harbour Downtown",
                               parent=brand, depth=1, tree_path="/100/101/")
    other = BusinessFactory(reseller=reseller, remote_id=200, name="Hill Cafe",
                            tree_path="/200/")

    def member(role, email, limited_to=None):
        return MembershipFactory(reseller=reseller, role=role, limited_to=limited_to,
                                 user=UserFactory(email=email))

    return Agency(reseller=reseller, brand=brand, downtown=downtown, other=other,
                  owner=member(Role.OWNER, "owner@agency.example"),
                  manager=member(Role.MANAGER, "manager@agency.example"),
                  viewer=member(Role.VIEWER, "viewer@agency.example"),
                  limited=member(Role.MANAGER, "brand@agency.example", brand),
                  elsewhere=member(Role.MANAGER, "hill@agency.example", other))


def told(alert) -> dict[str, str]:
    """Who got a notification of `alert`, by email address: their channel."""
    return {n.membership.user.email: n.channel
            for n in Notification.unscoped.filter(alert=alert).select_related("membership__user")}


def prefer(membership, kind, channel: Channel) -> None:
    NotificationPreference.unscoped.update_or_create(
        reseller=membership.reseller, membership=membership, kind=kind,
        defaults={"channel": channel})


def day_row(business, day: date, **values) -> BusinessDay:
    row = {"locations": 1, "reports": 1, "total_sites": 10, "synced": 5, "submitted": 0,
           "need_updates": 0, "opted_out": 0, "not_connected": 0, "needs_action": 0,
           "reviews": None, "rating_1": None, "rating_2": None, "rating_3": None,
           "rating_4": None, "rating_5": None, "recorded_at": timezone.now()}
    row.update(values)
    return BusinessDay.unscoped.create(reseller=business.reseller, business=business, day=day,
                                       **row)

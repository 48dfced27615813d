"""An agency in Paris with a small tree and members of every role, for the schedule tests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from accounts.models import Business, Membership, Reseller, Role
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, UserFactory

PRODUCT_NAME = "Riverside Reports"
SENDER = "reports@riverside.example"


@dataclass
class Agency:
    reseller: Reseller
    brand: Business  # an enterprise: a client
    downtown: Business  # a location of the brand
    other: Business  # a location outside the brand
    owner: Membership
    manager: Membership
    viewer: Membership
    limited: Membership  # a manager limited to the brand


@pytest.fixture
def agency(db) -> Agency:
    reseller = ResellerFactory(name="Riverside Agency", time_zone="Europe/Paris",
                               brand_product_name=PRODUCT_NAME, brand_sender_name="Riverside",
                               brand_sender_email=SENDER,
                               brand_support_email="help@riverside.example")
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
                  owner=member(Role.OWNER, "owner@riverside.example"),
                  manager=member(Role.MANAGER, "manager@riverside.example"),
                  viewer=member(Role.VIEWER, "viewer@riverside.example"),
                  limited=member(Role.MANAGER, "brand@riverside.example", brand))


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)

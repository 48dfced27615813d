"""Rows and a small business tree for the UI tests of the accounts pages."""

from __future__ import annotations

from dataclasses import dataclass

import factory
from django.utils import timezone

from accounts.models import Business, HierarchyMapping, Reseller, SyncRun
from listings.models import ListingSite, ListingStatusReport
from reviews_app.models import ReviewCount
from tests.factories import BusinessFactory, TenantRowFactory


class StatusReportFactory(TenantRowFactory):
    class Meta:
        model = ListingStatusReport
        skip_postgeneration_save = True

    business = factory.SubFactory(BusinessFactory)
    reseller = factory.SelfAttribute("business.reseller")
    remote_id = factory.SelfAttribute("business.remote_id")
    business_name = factory.SelfAttribute("business.name")
    location_status = "Published"
    activation_status = "active"
    total_sites = 10
    synced_count = 6
    submitted_count = 1
    need_updates_count = 0
    opted_out_count = 1
    not_connected_count = 2
    needs_action = False
    last_seen_at = factory.LazyFunction(timezone.now)

    @factory.post_generation
    def business_report_summary(obj, create, extracted, **kwargs):  # noqa: N805
        """As the mirror does when it writes a report."""
        if create:
            from listings.mirroring import report_summary_refresh

            report_summary_refresh(business_ids=[obj.business_id])


class SiteFactory(TenantRowFactory):
    class Meta:
        model = ListingSite

    business = factory.SubFactory(BusinessFactory)
    reseller = factory.SelfAttribute("business.reseller")
    site_id = factory.Sequence(lambda n: 100 + n)
    site_name = factory.Sequence(lambda n: f"Directory {n}")
    status = "Synced"
    url = "https://directory.example/listing"
    last_seen_at = factory.LazyFunction(timezone.now)


class ReviewCountFactory(TenantRowFactory):
    class Meta:
        model = ReviewCount

    reseller = factory.SubFactory("tests.factories.ResellerFactory")
    remote_id = factory.SelfAttribute("reseller.account_number")
    review_count = 42
    average_rating = "4.20"
    count_by_rating = factory.LazyFunction(lambda: {"5": 20, "4": 12, "3": 5, "2": 3, "1": 2})
    last_seen_at = factory.LazyFunction(timezone.now)


class SyncRunFactory(TenantRowFactory):
    class Meta:
        model = SyncRun

    reseller = factory.SubFactory("tests.factories.ResellerFactory")
    status = SyncRun.Status.SUCCEEDED
    total = 10
    done = 10


class LevelFactory(TenantRowFactory):
    class Meta:
        model = HierarchyMapping

    business = factory.SubFactory(BusinessFactory)
    reseller = factory.SelfAttribute("business.reseller")
    level_name = "Region"
    level_value = "West"


def child(reseller: Reseller, parent: Business | None, remote_id: int, **fields) -> Business:
    path = f"{parent.tree_path if parent else '/'}{remote_id}/"
    depth = parent.depth + 1 if parent else 0
    return BusinessFactory(reseller=reseller, parent=parent, remote_id=remote_id,
                           tree_path=path, depth=depth, **fields)


@dataclass
class Tree:
    """sub (Reseller) > ent (Enterprise) > a, b;  sub > c;  ent2 > d;  e (removed)."""

    sub: Business
    ent: Business
    ent2: Business
    a: Business
    b: Business
    c: Business
    d: Business
    e: Business


def make_tree(reseller: Reseller) -> Tree:
    sub = child(reseller, None, 100, name="West Agency", type=Business.Type.RESELLER, city="")
    ent = child(reseller, sub, 200, name="Burger Brand", type=Business.Type.ENTERPRISE_LOCATION,
                city="")
    a = child(reseller, ent, 301, name="Burger Brand - Austin", alias="LOC-A", city="Austin",
              country_code="US", status="active")
    b = child(reseller, ent, 302, name="Burger Brand - Boston", alias="LOC-B", city="Boston",
              country_code="US", status="demo")
    c = child(reseller, sub, 303, name="Corner Bakery", city="Toronto", country_code="CA",
              status="inactive")
    ent2 = child(reseller, None, 400, name="Pizza Place", type=Business.Type.ENTERPRISE_LOCATION,
                 city="")
    d = child(reseller, ent2, 401, name="Pizza Place - Paris", city="Paris", country_code="FR")
    e = child(reseller, None, 501, name="Gone Diner", city="Austin", country_code="US",
              removed_at=timezone.now())
    StatusReportFactory(business=a, needs_action=True, need_updates_count=3, synced_count=5,
                        errors=["Address mismatch"])
    StatusReportFactory(business=b, location_status="Scan State", synced_count=2)
    StatusReportFactory(business=d, location_status="Disabled", synced_count=9)
    return Tree(sub=sub, ent=ent, ent2=ent2, a=a, b=b, c=c, d=d, e=e)

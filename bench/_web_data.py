"""The data of bench/web.py: one reseller with 50,000 locations under sub-resellers and
enterprises, their status reports and listing sites, a few sync runs, review counts, a member
and an API token.

Rows are written through the sync's own write path (`business_children_mirror`,
`status_reports_mirror`) from payloads shaped like the provider's, so the tables, indexes and raw
payloads are what a real sync of that account leaves. A marker (the reseller's name names the
shape) lets a re-run reuse the data.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import timedelta

SLUG = "bench-web"
ACCOUNT_NUMBER = 7_000_000_000
DATA_VERSION = 1  # raise when the shape below changes, so old data is rebuilt
MEMBER_EMAIL = "bench-web@example.com"

CITIES = {
    "US": [("Austin", "TX"), ("Boston", "MA"), ("Denver", "CO"), ("Seattle", "WA"),
           ("Chicago", "IL"), ("Miami", "FL"), ("Portland", "OR"), ("Phoenix", "AZ")],
    "CA": [("Toronto", "ON"), ("Vancouver", "BC"), ("Montreal", "QC")],
    "GB": [("London", ""), ("Leeds", ""), ("Bristol", "")],
    "NZ": [("Auckland", ""), ("Wellington", "")],
}
COUNTRY_NAMES = {"US": "United States", "CA": "Canada", "GB": "United Kingdom",
                 "NZ": "New Zealand"}
TRADES = ["Pizza", "Dental", "Burger", "Coffee", "Fitness", "Auto Repair", "Bakery", "Salon",
          "Pharmacy", "Hardware", "Books", "Pet Care", "Florist", "Optician", "Taco"]
SITES = ["Google", "Facebook", "Bing", "Apple Maps", "Yelp", "Foursquare", "TripAdvisor",
         "Yellow Pages", "MapQuest", "Here", "TomTom", "Nextdoor", "Hotfrog", "Cylex",
         "Brownbook", "Infobel", "Judy's Book", "Chamber of Commerce", "Citysquares",
         "ShowMeLocal", "Tupalo", "n49"]
SITE_STATES = {"Synced": 60, "Submitted": 12, "In Progress": 8, "Action Required": 6,
               "Connect": 8, "Opted out": 6}


@dataclass(frozen=True)
class Shape:
    locations: int
    sub_resellers: int = 4
    enterprises: int = 100
    report_share: float = 0.95  # locations that have a status report (the others are new)
    seed: int = 1

    @property
    def marker(self) -> str:
        return f"Bench web v{DATA_VERSION} ({self.locations} locations, seed {self.seed})"


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _location_payload(rng: random.Random, number: int, trade: str) -> dict:
    country = _weighted(rng, {"US": 70, "CA": 12, "GB": 12, "NZ": 6})
    city, state = rng.choice(CITIES[country])
    return {
        "id": number, "name": f"{trade} {city} #{number % 100000}", "alias": f"LOC-{number}",
        "type": "Business", "status": _weighted(rng, {"active": 85, "demo": 8, "inactive": 7}),
        "createdOn": "Mar 14, 2024", "createdBy": "bench@example.com",
        "phone": f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{rng.randint(0, 9999):04d}",
        "address": {"address1": f"{rng.randint(1, 9999)} Main Street", "address2": "",
                    "subLocality": "", "city": city, "state": state,
                    "zip": f"{rng.randint(10000, 99999)}", "countryCode": country,
                    "countryName": COUNTRY_NAMES[country]},
    }


def _container_payload(number: int, name: str, type_: str, child_count: int) -> dict:
    return {"id": number, "name": name, "alias": "", "type": type_, "status": "active",
            "createdOn": "Jan 02, 2023", "createdBy": "bench@example.com",
            "childCount": child_count}


def _report_payload(rng: random.Random, location: dict) -> dict:
    sites = []
    for site_id, site_name in enumerate(rng.sample(SITES, rng.randint(12, len(SITES))), 1):
        state = _weighted(rng, SITE_STATES)
        sites.append({"siteId": site_id, "siteName": site_name, "status": state,
                      "errors": ["Address mismatch"] if state == "Action Required" else [],
                      "url": f"https://{site_name.lower().replace(' ', '')}.example/"
                             f"{location['id']}"})
    counts = {state: sum(1 for s in sites if s["status"] == state) for state in SITE_STATES}
    return {
        "businessName": location["name"], "activationStatus": location["status"],
        "lastUpdated": "2 days ago",
        "locationStatus": _weighted(rng, {"Published": 80, "Scan State": 17, "Disabled": 3}),
        "publishListings": "Yes", "errors": [],
        "totalSites": len(sites), "syncedCount": counts["Synced"],
        "submittedCount": counts["Submitted"] + counts["In Progress"],
        "needUpdatesCount": counts["Action Required"], "optedOutCount": counts["Opted out"],
        "notConnectedCount": counts["Connect"], "sites": sites,
    }


def _tree(shape: Shape, rng: random.Random):
    """(parent number, [child payloads]) per container, parents before their children."""
    number = ACCOUNT_NUMBER
    subs, enterprises = [], []
    for n in range(shape.sub_resellers):
        number += 1
        subs.append(_container_payload(number, f"Sub-reseller {n + 1}", "Reseller", 0))
    for n in range(shape.enterprises):
        number += 1
        type_ = "Enterprise-Location" if n % 5 < 3 else "Enterprise-Product"
        enterprises.append(_container_payload(number, f"{TRADES[n % len(TRADES)]} Group {n + 1}",
                                              type_, 0))
    # A few large brands and many small ones, and 5% single locations outside any enterprise.
    singles = shape.locations // 20
    weights = [1 / (rank + 1) for rank in range(len(enterprises))]
    owners = rng.choices(range(len(enterprises)), weights=weights, k=shape.locations - singles)
    per_enterprise: dict[int, list[dict]] = {i: [] for i in range(len(enterprises))}
    for owner in owners:
        number += 1
        per_enterprise[owner].append(
            _location_payload(rng, number, TRADES[owner % len(TRADES)]))
    children: dict[int, list[dict]] = {ACCOUNT_NUMBER: list(subs)}
    for sub in subs:
        children[sub["id"]] = []
    parents = [ACCOUNT_NUMBER, *(sub["id"] for sub in subs)]
    for index, enterprise in enumerate(enterprises):
        children[parents[index % len(parents)]].append(enterprise)
        enterprise["childCount"] = len(per_enterprise[index])
        children[enterprise["id"]] = per_enterprise[index]
    for n in range(singles):
        number += 1
        children[parents[n % len(parents)]].append(
            _location_payload(rng, number, TRADES[n % len(TRADES)]))
    for sub in subs:
        sub["childCount"] = len(children[sub["id"]])
    return children


def data_ready(shape: Shape) -> bool:
    from accounts.models import Reseller

    return Reseller.objects.filter(slug=SLUG, name=shape.marker).exists()


def build(shape: Shape, *, progress) -> None:
    """Replace the bench reseller's data with `shape` (about a minute for 50,000 locations)."""
    from django.db import connection, transaction
    from django.utils import timezone

    from accounts.mirroring import TreeNode, business_children_mirror
    from accounts.models import Business, Reseller, SyncRun
    from listings.mirroring import status_reports_mirror
    from portal.tenancy import tenant_scope
    from provider.types import ChildBusiness, LocationStatusReport
    from reviews_app.models import ReviewCount

    started = time.monotonic()
    old = Reseller.objects.filter(slug=SLUG).first()
    if old is not None:
        progress("Removing the previous bench data…")
        with connection.cursor() as cursor:
            # TRUNCATE would hit other tenants; deleting ~1M rows by reseller is fast enough.
            for table in ("listings_listingsite", "listings_listingstatusreport",
                          "accounts_business"):
                cursor.execute(f"DELETE FROM {table} WHERE reseller_id = %s",  # noqa: S608
                               [old.pk])
        old.delete()
    rng = random.Random(shape.seed)  # noqa: S311 - reproducible test data, not secrets
    tenant = Reseller.objects.create(
        name=f"{shape.marker} (building)", slug=SLUG, account_number=ACCOUNT_NUMBER,
        provider_base_url="http://127.0.0.1:9/sandbox", rate_limit_count=100)
    children = _tree(shape, rng)
    seen_at = timezone.now()
    with tenant_scope(tenant):
        progress(f"Writing {shape.locations} locations through the sync's write path…")
        pending = [TreeNode(pk=None, remote_id=ACCOUNT_NUMBER, tree_path="/", depth=-1)]
        while pending:
            node = pending.pop(0)
            page = [ChildBusiness.from_json(payload)
                    for payload in children.get(node.remote_id, [])]
            for start in range(0, len(page), 1000):
                with transaction.atomic():
                    pending.extend(business_children_mirror(
                        tenant=tenant, parent=node, children=page[start:start + 1000],
                        seen_at=seen_at))
        progress(f"  businesses written in {time.monotonic() - started:.0f} s; "
                 "status reports and sites…")
        locations = list(Business.objects.filter(reseller=tenant, type=Business.Type.BUSINESS)
                         .order_by("remote_id").only("pk", "remote_id", "name", "status",
                                                     "reseller_id"))
        batch = []
        for number, location in enumerate(locations, 1):
            if rng.random() < shape.report_share:
                payload = _report_payload(rng, {"id": location.remote_id, "name": location.name,
                                                "status": location.status})
                batch.append((location, LocationStatusReport.from_json(payload)))
            if len(batch) >= 500 or (number == len(locations) and batch):
                with transaction.atomic():
                    status_reports_mirror(tenant=tenant, reports=batch, seen_at=seen_at)
                batch = []
            if number % 10000 == 0:
                progress(f"  {number} locations done ({time.monotonic() - started:.0f} s)")
        ReviewCount.objects.create(
            reseller=tenant, remote_id=ACCOUNT_NUMBER, review_count=182_340,
            average_rating="4.21",
            count_by_rating={"5": 90000, "4": 50000, "3": 20000, "2": 12000, "1": 10340},
            last_seen_at=seen_at)
        for n in range(8):
            SyncRun.objects.create(
                reseller=tenant, status=SyncRun.Status.SUCCEEDED, total=shape.locations,
                done=shape.locations, requests_made=3 * shape.locations,
                started_at=seen_at, finished_at=seen_at, created_at=seen_at - timedelta(days=n))
    with connection.cursor() as cursor:
        # Fresh statistics and visibility map, as autovacuum would leave them after a while.
        cursor.execute("VACUUM ANALYZE accounts_business, listings_listingstatusreport, "
                       "listings_listingsite")
    tenant.name = shape.marker
    tenant.save(update_fields=["name"])
    progress(f"Data built in {time.monotonic() - started:.0f} s.")


@dataclass
class Fixture:
    tenant: object
    membership: object
    user: object
    token: str


def member_and_token(*, role: str = "viewer") -> Fixture:
    """The bench's member (created once) and a fresh API token for this run."""
    from accounts.models import ApiToken, Membership, Reseller, User
    from accounts.tokens import api_token_create
    from portal.tenancy import tenant_scope

    tenant = Reseller.objects.get(slug=SLUG)
    user = User.objects.filter(email=MEMBER_EMAIL).first()
    if user is None:
        user = User.objects.create_user(MEMBER_EMAIL, None, full_name="Bench")
    with tenant_scope(tenant):
        membership, _ = Membership.objects.get_or_create(
            reseller=tenant, user=user, defaults={"role": role})
        ApiToken.objects.filter(reseller=tenant, user=user).delete()
        _, plaintext = api_token_create(tenant=tenant, actor=None, user=user, name="bench",
                                        role=role)
    return Fixture(tenant=tenant, membership=membership, user=user, token=plaintext)

"""The access policy, proved: every page of the URL conf and every operation of the OpenAPI
schema, for every role, without and with a subtree limit, inside the member's subtree, outside
it, and from another reseller. The answer expected of each case is worked out from the policy
table (`accounts.access.POLICY`), so a rule changed there changes what is checked here, and a
page or operation missing from the table fails `test_every_page_and_operation_is_in_the_table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import resolve, reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import access
from accounts.models import Business, Membership, Role, SyncRun, User
from accounts.tokens import api_token_create
from listings.models import ListingStatusReport, Question
from media_app.models import MediaItem
from portal.tenancy import tenant_scope
from tests.factories import MembershipFactory, UserFactory
from tests.security.routes import api_operations, routes, tenant_pages
from tests.security.world import Route, change_rows

pytestmark = pytest.mark.django_db

ROLES = (Role.OWNER, Role.MANAGER, Role.VIEWER)
OUTSIDE_MARKER = "Quillon-Outside-Branch"


@dataclass
class Place:
    """The rows one set of URLs names: inside the limited members' subtree, or outside it."""

    remote_id: int
    number: int
    sync_run: int
    change: int
    event: int | None
    member: int
    bulk_change: int
    listing_import: int = 0
    report_schedule: int = 0
    sent_report: int = 0


@dataclass
class Limited:
    members: dict[str, Membership]  # limited to the tenant's root business, by role
    tokens: dict[str, str]
    token_pks: dict[str, int]  # each member's own token, by (label, role)
    inside: Place
    outside: Place
    users: list[int]


def _event(reseller, business, key):
    from events.models import ProviderEvent

    return ProviderEvent.unscoped.create(
        reseller=reseller, dedupe_key=key, event_name="LISTING_UPDATED", body="{}",
        payload={}, business=business, business_remote_id=business.remote_id).pk


def _bulk_change(reseller, location, scope) -> int:
    """A bulk change made by a member limited to `scope`."""
    from bulk.models import BulkChange, BulkChangeItem

    change = BulkChange.unscoped.create(reseller=reseller, scope=scope,
                                        selection={"numbers": [location.remote_id]})
    BulkChangeItem.unscoped.create(reseller=reseller, change=change, business=location,
                                   business_number=location.remote_id, position=0,
                                   state="unchanged")
    return change.pk


def _listing_import(reseller, location, scope) -> int:
    """A listings file imported by a member limited to `scope`."""
    from bulk.models import ListingImport, ListingImportRow

    listing_import = ListingImport.unscoped.create(reseller=reseller, scope=scope,
                                                   file_name="listings.csv", format="csv")
    ListingImportRow.unscoped.create(reseller=reseller, listing_import=listing_import, line=2,
                                     business=location, business_number=location.remote_id,
                                     state="unchanged")
    return listing_import.pk


def _report_schedule(reseller, location) -> dict:
    """A report schedule of `location` and a report it sent, as Place's fields."""
    from tests.security.world import report_schedule_rows

    rows = report_schedule_rows(reseller, location, OUTSIDE_MARKER)
    return {"report_schedule": rows["report_schedule"].pk, "sent_report": rows["sent_report"].pk}


def _outside_rows(tenant, root_limit_members) -> Place:
    """A second branch of tenant a beside the limited members' one, with a row of each kind."""
    reseller = tenant.reseller
    branch = Business.unscoped.create(reseller=reseller, remote_id=810_000_050,
                                      name=f"{OUTSIDE_MARKER}", type="Enterprise-Location",
                                      tree_path="/810000050/")
    location = Business.unscoped.create(reseller=reseller, remote_id=810_000_051, parent=branch,
                                        depth=1, name=f"{OUTSIDE_MARKER} Downtown",
                                        tree_path="/810000050/810000051/")
    rows = {"reseller": reseller, "last_seen_at": timezone.now()}
    ListingStatusReport.unscoped.create(**rows, business=location, remote_id=location.remote_id,
                                        business_name=location.name, total_sites=3,
                                        synced_count=1, needs_action=True)
    Question.unscoped.create(**rows, business=location, remote_id=810_000_053,
                             question=f"{OUTSIDE_MARKER} question")
    MediaItem.unscoped.create(**rows, business=location, remote_id="media-outside",
                              url="https://img.example/outside.jpg", category="EXTERIOR",
                              format="PHOTO", description=f"{OUTSIDE_MARKER} front")
    change, version = change_rows(reseller, location, OUTSIDE_MARKER)
    run = SyncRun.unscoped.create(reseller=reseller, status=SyncRun.Status.SUCCEEDED, total=1,
                                  done=1, scope=branch)
    member = MembershipFactory(reseller=reseller, role=Role.VIEWER, limited_to=branch,
                               user=UserFactory(email="outside-viewer@example.com"))
    root_limit_members.append(member.user_id)
    return Place(remote_id=location.remote_id, number=version.number, sync_run=run.pk,
                 change=change.pk, event=_event(reseller, location, "outside-event"),
                 member=member.pk, bulk_change=_bulk_change(reseller, location, branch),
                 listing_import=_listing_import(reseller, location, branch),
                 **_report_schedule(reseller, location))


@pytest.fixture(scope="module")
def limited(world, django_db_blocker):
    """Tenant a's members limited to its root business, and rows inside and outside it."""
    tenant = world["a"]
    with django_db_blocker.unblock(), tenant_scope(tenant.reseller):
        root = tenant.business.parent
        users: list[int] = []
        members, tokens, token_pks = {}, {}, {}
        for role in ROLES:
            member = MembershipFactory(reseller=tenant.reseller, role=role, limited_to=root,
                                       user=UserFactory(email=f"limited-{role}@example.com"))
            users.append(member.user_id)
            members[role] = member
            token, tokens[role] = api_token_create(tenant=tenant.reseller, actor=None,
                                                   user=member.user, name="limited", role=role)
            token_pks[("limited", role)] = token.pk
        for role in ROLES:
            token_pks[("unlimited", role)] = tenant.token_pks[role]
        # Notifications are personal: each member opens their own, found by their token.
        from alerts.models import Notification

        for role in ROLES:
            OWN_NOTIFICATIONS[token_pks[("unlimited", role)]] = (
                tenant.extra["notifications"][role].pk)
            OWN_NOTIFICATIONS[token_pks[("limited", role)]] = Notification.unscoped.create(
                reseller=tenant.reseller, alert=tenant.extra["alert"], membership=members[role],
                kind=tenant.extra["alert"].kind, channel="portal").pk
        run = SyncRun.unscoped.create(reseller=tenant.reseller, status=SyncRun.Status.SUCCEEDED,
                                      total=1, done=1, scope=root)
        inside = Place(remote_id=tenant.business.remote_id, number=tenant.version.number,
                       sync_run=run.pk, change=tenant.change.pk,
                       event=_event(tenant.reseller, tenant.business, "inside-event"),
                       member=members[Role.VIEWER].pk,
                       bulk_change=_bulk_change(tenant.reseller, tenant.business, root),
                       listing_import=_listing_import(tenant.reseller, tenant.business, root),
                       report_schedule=tenant.extra["report_schedule"].pk,
                       sent_report=tenant.extra["sent_report"].pk)
        outside = _outside_rows(tenant, users)
    yield Limited(members=members, tokens=tokens, token_pks=token_pks, inside=inside,
                  outside=outside, users=users)
    with django_db_blocker.unblock():
        User.objects.filter(pk__in=users).delete()


# Each member's own notification, by the id of their own token.
OWN_NOTIFICATIONS: dict[int, int] = {}


def fill(route: Route, tenant, place: Place, own_token: int) -> dict:
    values = {"slug": tenant.slug, "remote_id": place.remote_id, "number": place.number}
    by_name = {
        "sync_run": place.sync_run, "api_sync_run": place.sync_run, "api_change": place.change,
        "change_resolve": place.change,
        "provider_event": place.event, "api_provider_event": place.event,
        "settings_member": place.member, "api_token_revoke": own_token,
        "notification": OWN_NOTIFICATIONS.get(own_token, 0),
        "api_notification": OWN_NOTIFICATIONS.get(own_token, 0),
        "api_bulk_change": place.bulk_change, "bulk_change": place.bulk_change,
        "api_listing_import": place.listing_import, "listing_import": place.listing_import,
        "report_schedule": place.report_schedule, "api_report_schedule": place.report_schedule,
        "sent_report": place.sent_report, "api_sent_report": place.sent_report,
    }
    remote_ids = {"subscription_delete_confirm": tenant.subscription.remote_id,
                  "api_subscription_detail": tenant.subscription.remote_id,
                  "survey_response_detail": tenant.survey_response.remote_id,
                  "api_survey_response_detail": tenant.survey_response.remote_id,
                  "api_survey_responses": tenant.survey.remote_id,
                  "survey_unfollow_confirm": tenant.survey.remote_id,
                  "api_survey_detail": tenant.survey.remote_id}
    kwargs = {}
    for name in route.kwargs:
        if name == "pk":
            kwargs[name] = next(value for prefix, value in by_name.items()
                                if route.name.startswith(prefix))
        elif name == "remote_id" and route.name in remote_ids:
            kwargs[name] = remote_ids[route.name]
        else:
            kwargs[name] = values[name]
    return kwargs


def names_a_subtree_row(route: Route) -> bool:
    """Whether the URL names a row that belongs to one part of the tree (so that it can be
    outside a member's subtree)."""
    rule = access.POLICY[route.name]
    return rule.scope is access.Scope.SUBTREE and bool(set(route.kwargs) - {"slug"})


def expected(route_name: str, method: str, role: str, limited: bool, outside: bool) -> int | None:
    """403, 404, or None for "let through" (any answer of the page itself but 401/403/404/5xx)."""
    if access.refusal(name=route_name, method=method, role=role, limited=limited):
        return 403
    if outside and limited:
        return 404
    return None


def check(response, want: int | None, label: str) -> None:
    status = response.status_code
    if want is None:
        provider_down = status == 503 and b"provider_unavailable" in response.content
        assert status not in {401, 403, 404} and (status < 500 or provider_down), (label, status)
    elif want == 404 and status == 405:
        pass  # the page has no such method: there is nothing to find, inside or out
    else:
        assert status == want, (label, status, response.content[:200])


CASES = [(role, limited) for role in ROLES for limited in (False, True)]
CASE_IDS = [f"{role}-{'limited' if limited else 'unlimited'}" for role, limited in CASES]


def ui_client(world, limited_world, role, is_limited) -> Client:
    client = Client()
    member = limited_world.members[role] if is_limited else world["a"].members[role]
    client.force_login(member.user)
    return client


def own_token(limited_world, role, is_limited) -> int:
    return limited_world.token_pks[("limited" if is_limited else "unlimited", role)]


@pytest.mark.parametrize(("role", "is_limited"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("route", tenant_pages(), ids=lambda r: r.name)
def test_page(route, role, is_limited, world, limited):
    tenant = world["a"]
    client = ui_client(world, limited, role, is_limited)
    token = own_token(limited, role, is_limited)
    for place_name in ("inside", "outside"):
        outside = place_name == "outside"
        if outside and not names_a_subtree_row(route):
            continue
        url = reverse(route.name, kwargs=fill(route, tenant, getattr(limited, place_name), token))
        for method in ("GET", "POST"):
            want = expected(route.name, method, role, is_limited, outside)
            response = client.generic(method, url)
            check(response, want, f"{method} {url} {place_name}")
            if want == 403 and response["Content-Type"].startswith("text/html"):
                # The error page is the portal's own, with a way back.
                body = response.content.decode()
                assert reverse("tenant_home", args=[tenant.slug]) in body


@pytest.mark.parametrize(("role", "is_limited"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize(("method", "path"), [(m, p) for m, p, _ in api_operations()],
                         ids=[f"{m} {p}" for m, p, _ in api_operations()])
def test_api_operation(method, path, role, is_limited, world, limited):
    tenant = world["a"]
    name = resolve(re.sub(r"\{[^}]+\}", "1", path)).url_name
    route = next(r for r in routes() if r.name == name)
    client = APIClient()
    token = limited.tokens[role] if is_limited else tenant.tokens[role]
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    own = own_token(limited, role, is_limited)
    for place_name in ("inside", "outside"):
        outside = place_name == "outside"
        if outside and not names_a_subtree_row(route):
            continue
        url = reverse(name, kwargs=fill(route, tenant, getattr(limited, place_name), own))
        want = expected(name, method, role, is_limited, outside)
        response = client.generic(method, url, "{}", content_type="application/json")
        check(response, want, f"{method} {url} {place_name}")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route", tenant_pages(), ids=lambda r: r.name)
def test_page_of_another_reseller(route, role, world, limited):
    """A member of reseller b, of any role, meets 404 on every page of reseller a."""
    client = Client()
    client.force_login(world["b"].members[role].user)
    url = reverse(route.name, kwargs=fill(route, world["a"], limited.inside,
                                          own_token(limited, role, False)))
    for method in ("GET", "POST"):
        assert client.generic(method, url).status_code == 404, (method, url)


def test_every_page_and_operation_is_in_the_table():
    pages = {route.name for route in tenant_pages()}
    operations = {resolve(re.sub(r"\{[^}]+\}", "1", path)).url_name
                  for _, path, _ in api_operations()}
    missing = sorted((pages | operations) - set(access.POLICY))
    assert not missing, f"Add these to accounts.access.POLICY: {missing}"
    stale = sorted(set(access.POLICY) - pages - operations)
    assert not stale, f"accounts.access.POLICY names URLs that do not exist: {stale}"


def test_every_sync_resource_is_in_the_table():
    from sync.services import RESOURCES

    assert set(access.SYNC_RESOURCE_SCOPE) == set(RESOURCES)


def test_an_unlisted_url_name_is_refused():
    assert access.refusal(name="a_page_nobody_listed", method="GET", role=Role.OWNER,
                          limited=False) == access.UNLISTED_MESSAGE

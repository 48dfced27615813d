"""Members limited to a subtree: what a limited owner may do with members (only inside their
subtree), the takeover attempts that must fail through the pages and the API, and a portal
made for them (menu, dashboard, sync) with no dead link."""

from __future__ import annotations

import re
from collections import deque
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, Business, Membership, Reseller, Role, SyncRun
from accounts.settings_services import member_update
from accounts.tokens import api_token_create
from listings.models import CustomField, Subscription
from portal.tenancy import tenant_scope
from reviews_app.models import ReviewCount
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db


class Agency:
    """An agency with two clients (enterprises A and B, a location under each), its owner,
    and an owner limited to client A."""

    def __init__(self):
        self.reseller = ResellerFactory(api_key="limited-members-key-SENTINEL-1234",
                                        provider_base_url="http://127.0.0.1:9/sandbox")
        with tenant_scope(self.reseller):
            self.client_a = BusinessFactory(reseller=self.reseller, remote_id=501,
                                            tree_path="/501/", type="Enterprise-Location",
                                            name="Client A")
            self.location_a = BusinessFactory(reseller=self.reseller, remote_id=502,
                                              parent=self.client_a, depth=1,
                                              tree_path="/501/502/", name="A Downtown")
            self.client_b = BusinessFactory(reseller=self.reseller, remote_id=601,
                                            tree_path="/601/", type="Enterprise-Location",
                                            name="Client B")
            self.location_b = BusinessFactory(reseller=self.reseller, remote_id=602,
                                              parent=self.client_b, depth=1,
                                              tree_path="/601/602/", name="B Uptown")
        self.owner = MembershipFactory(reseller=self.reseller, role=Role.OWNER,
                                       user=UserFactory(email="real-owner@example.com"))
        self.limited_owner = MembershipFactory(
            reseller=self.reseller, role=Role.OWNER, limited_to=self.client_a,
            user=UserFactory(email="client-a-owner@example.com"))

    def url(self, name, *args):
        return reverse(name, args=[self.reseller.slug, *args])

    def ui(self, membership) -> Client:
        client = Client()
        client.force_login(membership.user)
        return client

    def api(self, membership, role=None) -> APIClient:
        with tenant_scope(self.reseller):
            _, plaintext = api_token_create(tenant=self.reseller, actor=None,
                                            user=membership.user, name="t",
                                            role=role or membership.role)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
        return client

    def membership_of(self, email) -> Membership | None:
        return Membership.unscoped.filter(reseller=self.reseller, user__email=email).first()


@pytest.fixture
def agency(db):
    return Agency()


# -- a limited owner manages members inside their subtree only ----------------------------------


def test_a_limited_owner_sees_only_the_members_of_their_subtree(agency):
    MembershipFactory(reseller=agency.reseller, role=Role.VIEWER, limited_to=agency.location_a,
                      user=UserFactory(email="a-viewer@example.com"))
    MembershipFactory(reseller=agency.reseller, role=Role.VIEWER, limited_to=agency.client_b,
                      user=UserFactory(email="b-viewer@example.com"))
    html = agency.ui(agency.limited_owner).get(agency.url("settings_members")).content.decode()
    assert "a-viewer@example.com" in html and "client-a-owner@example.com" in html
    assert "real-owner@example.com" not in html and "b-viewer@example.com" not in html


def test_a_limited_owner_invites_and_removes_members_inside_their_subtree(agency, mailoutbox):
    client = agency.ui(agency.limited_owner)
    response = client.post(agency.url("settings_members"),
                           {"email": "new-a@example.com", "role": Role.MANAGER,
                            "limited_to": agency.location_a.remote_id})
    assert response.status_code == 302
    member = agency.membership_of("new-a@example.com")
    assert member.limited_to == agency.location_a and member.role == Role.MANAGER
    response = client.post(agency.url("settings_member_remove", member.pk))
    assert response.status_code == 302
    assert agency.membership_of("new-a@example.com") is None


def test_the_invite_form_of_a_limited_owner_starts_at_their_subtree(agency):
    html = agency.ui(agency.limited_owner).get(agency.url("settings_members")).content.decode()
    assert re.search(r'name="limited_to"[^>]*value="501"', html)
    assert "Client A (501) or a business under it" in html


# -- the takeover attempts, through the pages ---------------------------------------------------


def test_a_limited_owner_cannot_remove_their_own_limit(agency):
    me = agency.limited_owner
    response = agency.ui(me).post(agency.url("settings_member_edit", me.pk),
                                  {"role": Role.OWNER, "limited_to": ""})
    assert response.status_code == 400
    assert "Your access is limited to Client A" in response.content.decode()
    me.refresh_from_db()
    assert me.limited_to == agency.client_a


def test_a_limited_owner_cannot_widen_their_limit_to_another_client(agency):
    me = agency.limited_owner
    response = agency.ui(me).post(agency.url("settings_member_edit", me.pk),
                                  {"role": Role.OWNER, "limited_to": agency.client_b.remote_id})
    assert response.status_code == 400
    me.refresh_from_db()
    assert me.limited_to == agency.client_a


def test_a_limited_owner_cannot_touch_the_real_owner(agency):
    client = agency.ui(agency.limited_owner)
    owner = agency.owner
    assert client.get(agency.url("settings_member_edit", owner.pk)).status_code == 404
    demote = client.post(agency.url("settings_member_edit", owner.pk),
                         {"role": Role.VIEWER, "limited_to": agency.client_a.remote_id})
    assert demote.status_code == 404
    assert client.post(agency.url("settings_member_remove", owner.pk)).status_code == 404
    owner.refresh_from_db()
    assert owner.role == Role.OWNER and owner.limited_to is None


def test_a_limited_owner_cannot_invite_an_unlimited_member(agency, mailoutbox):
    client = agency.ui(agency.limited_owner)
    for limit in ("", agency.client_b.remote_id, agency.location_b.remote_id):
        response = client.post(agency.url("settings_members"),
                               {"email": "intruder@example.com", "role": Role.OWNER,
                                "limited_to": limit})
        assert response.status_code == 400, limit
    assert agency.membership_of("intruder@example.com") is None
    assert not mailoutbox


def test_the_member_services_refuse_a_wider_limit_whatever_the_form_says(agency):
    """The rule lives in the service, so a caller that skips the form meets it too."""
    from django.core.exceptions import PermissionDenied, ValidationError

    with tenant_scope(agency.reseller), pytest.raises(ValidationError):
        member_update(tenant=agency.reseller, actor=agency.limited_owner.user,
                      membership=agency.limited_owner, role=Role.OWNER, limited_to=None,
                      actor_membership=agency.limited_owner)
    with tenant_scope(agency.reseller), pytest.raises(PermissionDenied):
        member_update(tenant=agency.reseller, actor=agency.limited_owner.user,
                      membership=agency.owner, role=Role.VIEWER, limited_to=agency.client_a,
                      actor_membership=agency.limited_owner)


@pytest.mark.parametrize("name", ["settings_connection", "settings_audit"])
def test_a_limited_owner_cannot_open_the_connection_or_the_audit_log(agency, name):
    client = agency.ui(agency.limited_owner)
    assert client.get(agency.url(name)).status_code == 403
    response = client.post(agency.url(name), {"provider_base_url": "https://evil.example.com",
                                              "account_number": 1, "api_key": "",
                                              "rate_limit_count": 1, "rate_limit_seconds": 1})
    assert response.status_code == 403
    assert client.post(agency.url("settings_test_connection")).status_code == 403
    agency.reseller.refresh_from_db()
    assert agency.reseller.provider_base_url == "http://127.0.0.1:9/sandbox"


def test_the_403_page_is_the_portals_own_with_a_way_back(agency, settings):
    settings.DEBUG = False
    response = agency.ui(agency.limited_owner).get(agency.url("settings_connection"))
    html = response.content.decode()
    assert response.status_code == 403
    assert "covers the whole account" in html
    assert f'href="{agency.url("tenant_home")}"' in html


# -- the takeover attempts, through the API -----------------------------------------------------


@pytest.mark.parametrize("role", [Role.OWNER, Role.MANAGER])
def test_the_api_refuses_account_wide_features_to_limited_members(agency, role):
    member = MembershipFactory(reseller=agency.reseller, role=role, limited_to=agency.client_a)
    api = agency.api(member)
    base = f"/api/v1/t/{agency.reseller.slug}/"
    with tenant_scope(agency.reseller):
        subscription = Subscription.objects.create(
            reseller=agency.reseller, remote_id="sub-1", event_name="SURVEY_COMPLETED",
            webhook_url="https://hooks.example.com/x", last_seen_at=timezone.now())
    attempts = [
        ("get", "subscriptions/", None),
        ("post", "subscriptions/", {"event_name": "SURVEY_COMPLETED",
                                    "webhook_url": "https://listener.example.com/"}),
        ("delete", f"subscriptions/{subscription.remote_id}/", None),
        ("get", "custom-fields/", None),
        ("post", "custom-fields/", {"field_name": "Takeover", "type": "TEXT"}),
        ("get", "ai-search/", None),
        ("post", "ai-search/refresh/", None),
        ("get", "audit-events/", None),
        ("get", "live-updates/", None),
        ("post", "live-updates/", None),
        ("get", "competitor-metrics/", None),
        ("get", "surveys/", None),
        ("post", "surveys/", {"remote_id": 999999999}),
    ]
    for method, path, body in attempts:
        response = getattr(api, method)(base + path, body, format="json")
        assert response.status_code == 403, (method, path, response.status_code)
        assert response.json()["code"] == "permission_denied"
    with tenant_scope(agency.reseller):
        assert Subscription.objects.count() == 1
        assert not CustomField.objects.exists()


def test_a_limited_manager_cannot_sync_account_wide_resources(agency):
    member = MembershipFactory(reseller=agency.reseller, role=Role.MANAGER,
                               limited_to=agency.client_a)
    api = agency.api(member)
    base = f"/api/v1/t/{agency.reseller.slug}/sync-runs/"
    response = api.post(base, {"resources": ["survey_responses", "media"]}, format="json")
    assert response.status_code == 400
    assert "survey_responses" in response.json()["fields"]["resources"][0]
    with tenant_scope(agency.reseller):
        assert not SyncRun.objects.exists()
    # Everything, for a limited member, means everything within their subtree.
    response = api.post(base, {}, format="json")
    assert response.status_code == 202
    run = SyncRun.unscoped.get(pk=response.json()["id"])
    assert run.scope == agency.client_a
    assert run.resources == ["businesses", "listing_status", "media", "qna", "review_counts"]


def test_a_limited_member_sees_only_the_sync_runs_of_their_subtree(agency):
    with tenant_scope(agency.reseller):
        whole = SyncRun.objects.create(reseller=agency.reseller, status="succeeded")
        theirs = SyncRun.objects.create(reseller=agency.reseller, status="succeeded",
                                        scope=agency.location_a)
        other = SyncRun.objects.create(reseller=agency.reseller, status="succeeded",
                                       scope=agency.client_b)
    member = MembershipFactory(reseller=agency.reseller, role=Role.VIEWER,
                               limited_to=agency.client_a)
    api = agency.api(member)
    listed = api.get(f"/api/v1/t/{agency.reseller.slug}/sync-runs/").json()["results"]
    assert [row["id"] for row in listed] == [theirs.pk]
    client = agency.ui(member)
    assert client.get(agency.url("sync_run_detail", theirs.pk)).status_code == 200
    for run in (whole, other):
        assert client.get(agency.url("sync_run_detail", run.pk)).status_code == 404
        assert client.get(agency.url("sync_run_progress", run.pk)).status_code == 404


def test_the_sync_page_offers_a_limited_member_only_subtree_resources(agency):
    member = MembershipFactory(reseller=agency.reseller, role=Role.MANAGER,
                               limited_to=agency.client_a)
    html = agency.ui(member).get(agency.url("sync_run_list")).content.decode()
    assert 'value="media"' in html and 'value="review_counts"' in html
    assert 'value="survey_responses"' not in html and 'value="ai_search"' not in html
    response = agency.ui(member).post(agency.url("sync_run_list"),
                                      {"resources": ["competitor_metrics"]})
    assert response.status_code == 400


# -- tokens of a removed member -----------------------------------------------------------------


def test_removing_a_member_deletes_their_tokens_for_good(agency, mailoutbox):
    member = MembershipFactory(reseller=agency.reseller, role=Role.MANAGER,
                               user=UserFactory(email="leaver@example.com"))
    api = agency.api(member)
    business_list = f"/api/v1/t/{agency.reseller.slug}/businesses/"
    assert api.get(business_list).status_code == 200
    owner = agency.ui(agency.owner)
    assert owner.post(agency.url("settings_member_remove", member.pk)).status_code == 302
    assert not ApiToken.unscoped.filter(user=member.user).exists()
    assert api.get(business_list).status_code == 401
    # Invited back, the old token stays dead.
    owner.post(agency.url("settings_members"), {"email": "leaver@example.com",
                                                "role": Role.MANAGER, "limited_to": ""})
    assert agency.membership_of("leaver@example.com") is not None
    assert api.get(business_list).status_code == 401


def test_the_invite_message_does_not_tell_whether_the_email_has_an_account(agency, mailoutbox):
    UserFactory(email="known@example.com")
    owner = agency.ui(agency.owner)
    messages = []
    for email in ("known@example.com", "unknown@example.com"):
        response = owner.post(agency.url("settings_members"),
                              {"email": email, "role": Role.VIEWER, "limited_to": ""},
                              follow=True)
        text = [str(m) for m in response.context["messages"]]
        messages.append([m.replace(email, "EMAIL") for m in text])
    assert messages[0] == messages[1]


def test_the_last_unlimited_owner_cannot_limit_themselves(agency):
    me = agency.owner
    response = agency.ui(me).post(agency.url("settings_member_edit", me.pk),
                                  {"role": Role.OWNER, "limited_to": agency.client_a.remote_id})
    assert response.status_code == 400
    assert "without a limit" in response.content.decode()
    me.refresh_from_db()
    assert me.limited_to is None


# -- a portal made for them ---------------------------------------------------------------------


def test_the_menu_of_a_limited_member_offers_only_what_they_may_open(agency):
    member = MembershipFactory(reseller=agency.reseller, role=Role.MANAGER,
                               limited_to=agency.client_a)
    html = agency.ui(member).get(agency.url("tenant_home")).content.decode()
    menu = html[html.index('class="mainnav"'):html.index("</nav>", html.index('class="mainnav"'))]
    for name in ("business_list", "sync_run_list", "provider_event_list"):
        assert f'href="{agency.url(name)}"' in menu
    for name in ("competitor_metrics", "competitive_ranking", "survey_responses",
                 "custom_field_list", "ai_search", "subscription_list", "settings_connection"):
        assert f'href="{agency.url(name)}"' not in menu, name
    owner_html = agency.ui(agency.limited_owner).get(agency.url("tenant_home")).content.decode()
    assert f'href="{agency.url("settings_members")}"' in owner_html
    assert f'href="{agency.url("settings_connection")}"' not in owner_html


def test_the_dashboard_of_a_limited_member_sums_the_reviews_of_their_locations(agency):
    now = timezone.now()
    with tenant_scope(agency.reseller):
        ReviewCount.objects.create(reseller=agency.reseller, remote_id=502, review_count=11,
                                   average_rating=Decimal("4.00"),
                                   count_by_rating={"5": 4, "4": 4, "2": 2}, last_seen_at=now)
        BusinessFactory(reseller=agency.reseller, remote_id=503, parent=agency.client_a,
                        depth=1, tree_path="/501/503/", name="A Airport")
        ReviewCount.objects.create(reseller=agency.reseller, remote_id=503, review_count=5,
                                   average_rating=Decimal("1.00"), count_by_rating={"1": 5},
                                   last_seen_at=now)
        ReviewCount.objects.create(reseller=agency.reseller, remote_id=602, review_count=99,
                                   average_rating=Decimal("1.00"), count_by_rating={"1": 99},
                                   last_seen_at=now)
    member = MembershipFactory(reseller=agency.reseller, role=Role.VIEWER,
                               limited_to=agency.client_a)
    dashboard = agency.ui(member).get(agency.url("tenant_home")).context["dashboard"]
    assert dashboard.reviews.review_count == 16
    # Weighted by the rated reviews: the one without a rating does not pull the average down.
    assert dashboard.reviews.average_rating == Decimal("3.00")
    assert dashboard.reviews.count_by_rating == {"5": 4, "4": 4, "2": 2, "1": 5}


def _tenant_links(html: str, prefix: str) -> set[str]:
    return {href.replace("&amp;", "&") for href in re.findall(r'href="([^"#]+)"', html)
            if href.startswith(prefix)}


@pytest.mark.parametrize("role", [Role.OWNER, Role.MANAGER, Role.VIEWER])
def test_a_limited_member_meets_no_dead_link(agency, role):
    """Every link of every page a limited member can reach, followed: none answers 403, 404
    or an error."""
    member = (agency.limited_owner if role == Role.OWNER else
              MembershipFactory(reseller=agency.reseller, role=role, limited_to=agency.client_a))
    client = agency.ui(member)
    prefix = agency.url("tenant_home")
    queue, seen = deque([prefix]), {prefix}
    while queue and len(seen) < 150:
        url = queue.popleft()
        response = client.get(url)
        assert response.status_code in {200, 302}, (url, response.status_code)
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            for link in _tenant_links(response.content.decode(), prefix) - seen:
                seen.add(link)
                queue.append(link)
    assert len(seen) > 10
    # The account-wide review pages live under /reports/; a client's report there is theirs.
    assert not any(name in link for link in seen
                   for name in ("/settings/audit/", "/reports/competitors/", "/reports/ranking/",
                                "/reports/surveys/", "/webhooks/", "/ai-search/"))


def test_nothing_here_leaks_into_another_reseller(agency):
    other = Reseller.objects.exclude(pk=agency.reseller.pk)
    assert not other.exists()
    assert Business.unscoped.filter(reseller=agency.reseller).count() == 4


def test_a_run_limited_to_a_subtree_counts_only_its_subtree(agency):
    from media_app.models import MediaItem
    from sync.services import mirror_counts

    now = timezone.now()
    with tenant_scope(agency.reseller):
        for location in (agency.location_a, agency.location_b):
            MediaItem.objects.create(reseller=agency.reseller, business=location,
                                     remote_id=f"m-{location.remote_id}", last_seen_at=now,
                                     url="https://img.example/x.jpg", category="EXTERIOR",
                                     format="PHOTO")
        scoped = mirror_counts(agency.reseller, scope=agency.client_a)
        whole = mirror_counts(agency.reseller)
    assert scoped["businesses"] == 2 and scoped["locations"] == 1 and scoped["media"] == 1
    assert whole["businesses"] == 4 and whole["media"] == 2
    # What covers the whole account is not reported to a run of one client.
    assert "survey_responses" not in scoped and "competitor_metrics" not in scoped

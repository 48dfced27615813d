"""Business detail, tab "Listing status": the report, its sites, refresh; containers' summary."""

import pytest
from django.urls import reverse

from accounts.models import AuditEvent, Reseller, Role
from listings import tasks as tasks_ui
from listings.models import ListingSite, ListingStatusReport
from portal.tenancy import tenant_scope
from tests.accounts.ui_factories import SiteFactory, StatusReportFactory, make_tree
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory
from tests.live import connect_reseller


@pytest.fixture
def run_tasks_inline(monkeypatch):
    """Queued refresh tasks run in the test's process, as a worker would run them."""
    task = tasks_ui.listing_status_refresh_task
    monkeypatch.setattr(task, "delay", lambda **kwargs: task.apply(kwargs=kwargs))


def detail_url(business, reseller=None):
    return reverse("business_detail", args=[(reseller or business.reseller).slug,
                                            business.remote_id])


@pytest.mark.django_db
class TestAccess:
    def test_member_sees_the_status_report_and_sites(self, member_client):
        client, membership = member_client(Role.VIEWER)
        tree = make_tree(membership.reseller)
        SiteFactory(business=tree.a, site_name="Maps Directory", status="Action Required",
                    errors=["Phone mismatch"], url="https://maps.example/austin")
        SiteFactory(business=tree.a, site_name="Old Directory", removed_at="2024-01-01T00:00Z")
        response = client.get(detail_url(tree.a))
        assert response.status_code == 200
        page = response.content.decode()
        assert "Burger Brand - Austin" in page
        assert "Listing sites by state: Synced 5, Submitted 1, Needs update 3" in page
        assert "Maps Directory" in page and "Phone mismatch" in page
        assert 'href="https://maps.example/austin"' in page
        assert "Old Directory" not in page  # removed from the report
        assert "Address mismatch" in page  # the report's own errors
        assert "Last refreshed" in page

    def test_another_tenants_member_gets_404(self, client):
        mine, other = MembershipFactory(), MembershipFactory()
        business = BusinessFactory(reseller=mine.reseller)
        client.force_login(other.user)
        assert client.get(detail_url(business)).status_code == 404

    def test_another_tenants_business_id_is_404(self, member_client):
        client, membership = member_client(Role.OWNER)
        theirs = BusinessFactory()
        assert client.get(detail_url(theirs, membership.reseller)).status_code == 404
        assert client.post(detail_url(theirs, membership.reseller)).status_code == 404

    def test_an_out_of_range_business_number_is_404(self, member_client):
        client, membership = member_client(Role.VIEWER)
        for name in ("business_detail", "business_hierarchy"):
            url = reverse(name, args=[membership.reseller.slug, 10**20])
            assert client.get(url).status_code == 404

    def test_subtree_member_gets_404_outside_and_no_parent_outside(self, member_client):
        reseller = ResellerFactory()
        tree = make_tree(reseller)
        client, membership = member_client(Role.VIEWER, reseller=reseller, limited_to=tree.ent)
        assert client.get(detail_url(tree.d)).status_code == 404
        assert client.get(detail_url(tree.sub)).status_code == 404
        assert client.get(detail_url(tree.a)).status_code == 200
        page = client.get(detail_url(tree.ent)).content.decode()
        assert "West Agency" not in page  # its parent, outside their subtree

    def test_viewer_has_no_refresh_button_and_cannot_post(self, member_client):
        client, membership = member_client(Role.VIEWER)
        business = BusinessFactory(reseller=membership.reseller)
        StatusReportFactory(business=business)
        assert "Refresh</button>" not in client.get(detail_url(business)).content.decode()
        assert client.post(detail_url(business)).status_code == 403
        assert not AuditEvent.unscoped.filter(action__startswith="listing_status").exists()

    def test_manager_has_a_refresh_button(self, member_client):
        client, membership = member_client(Role.MANAGER)
        business = BusinessFactory(reseller=membership.reseller)
        assert "Refresh</button>" in client.get(detail_url(business)).content.decode()

    def test_removed_business_is_shown_as_removed_without_refresh(self, member_client):
        client, membership = member_client(Role.MANAGER)
        tree = make_tree(membership.reseller)
        page = client.get(detail_url(tree.e)).content.decode()
        assert "no longer returns this business" in page
        assert "Refresh</button>" not in page

    def test_container_shows_what_is_under_it(self, member_client):
        client, membership = member_client(Role.VIEWER)
        tree = make_tree(membership.reseller)
        response = client.get(detail_url(tree.sub))
        summary = response.context["summary"]
        assert summary["location_count"] == 3
        assert summary["locations_by_status"] == {"active": 1, "demo": 1, "inactive": 1}
        assert summary["health"]["synced"] == 5 + 2
        assert [c.name for c in summary["children"]] == ["Burger Brand", "Corner Bakery"]
        page = response.content.decode()
        assert f"within={tree.sub.remote_id}" in page
        assert "Refresh</button>" not in page
        assert "Pizza Place" not in page


@pytest.mark.django_db
def test_refresh_without_a_key_says_so(member_client, run_tasks_inline,
                                       django_capture_on_commit_callbacks):
    client, membership = member_client(Role.MANAGER)
    Reseller.objects.filter(pk=membership.reseller.pk).update(api_key_encrypted="")
    business = BusinessFactory(reseller=membership.reseller)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(detail_url(business))
    assert response.status_code == 302
    page = client.get(response.url).content.decode()
    assert "Refresh requested" in page
    assert "failed: This reseller has no usable API key" in page


@pytest.mark.django_db
def test_refresh_is_queued_after_commit(member_client, monkeypatch,
                                        django_capture_on_commit_callbacks):
    queued = []
    monkeypatch.setattr(tasks_ui.listing_status_refresh_task, "delay",
                        lambda **kwargs: queued.append(kwargs))
    client, membership = member_client(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client.post(detail_url(business))
    assert queued == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert queued == [{"reseller_id": membership.reseller.pk, "business_id": business.pk,
                       "actor_id": membership.user.pk}]
    page = client.get(detail_url(business)).content.decode()
    assert "is on its way" in page and "reload.js" in page


# -- against the sandbox over HTTP -------------------------------------------------------------

KEY = "ui-detail-test-partner-key"


@pytest.fixture
def seeded(live_server, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    return connect_reseller(live_server, key=KEY, locations=3, seed=1)


@pytest.mark.django_db(transaction=True)
def test_refresh_fetches_and_mirrors_the_report(seeded, member_client, run_tasks_inline):
    reseller, result = seeded
    location = BusinessFactory(reseller=reseller, remote_id=result["location_numbers"][0])
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    response = client.post(detail_url(location), follow=True)
    assert response.status_code == 200
    with tenant_scope(reseller):
        report = ListingStatusReport.objects.get(business=location)
        sites = ListingSite.objects.filter(business=location).count()
    assert report.total_sites > 0 and sites == report.total_sites
    assert response.context["report"].pk == report.pk
    assert AuditEvent.unscoped.filter(action="listing_status.refreshed",
                                      object_id=str(location.pk)).exists()
    page = response.content.decode()
    assert "Directory sites" in page and "No status report yet" not in page


@pytest.mark.django_db(transaction=True)
def test_refresh_of_a_business_the_provider_does_not_know(seeded, member_client,
                                                          run_tasks_inline):
    reseller, result = seeded
    unknown = BusinessFactory(reseller=reseller, remote_id=123456789012345)
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    page = client.post(detail_url(unknown), follow=True).content.decode()
    assert "failed: The provider does not know this business" in page
    with tenant_scope(reseller):
        assert not ListingStatusReport.objects.exists()


@pytest.mark.django_db
def test_a_refresh_that_never_ran_is_reported_and_the_page_stops_reloading(member_client):
    from datetime import timedelta

    from django.utils import timezone

    client, membership = member_client(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    AuditEvent.unscoped.create(reseller=membership.reseller,
                               action="listing_status.refresh_requested",
                               object_type="accounts.business", object_id=str(business.pk),
                               created_at=timezone.now() - timedelta(minutes=10))
    page = client.get(detail_url(business)).content.decode()
    assert "has not run yet" in page and "reload.js" not in page


@pytest.mark.django_db
def test_the_service_refuses_a_refresh_of_a_removed_location_or_a_group():
    """The rule lives in the service, so every caller (page, API, task) meets the same one."""
    from django.core.exceptions import ValidationError
    from django.utils import timezone

    from listings.services import listing_status_refresh_request
    from portal.tenancy import tenant_scope
    from tests.factories import BusinessFactory, ResellerFactory

    reseller = ResellerFactory()
    with tenant_scope(reseller):
        removed = BusinessFactory(reseller=reseller, removed_at=timezone.now())
        group = BusinessFactory(reseller=reseller, type="Enterprise-Location")
        for business, words in ((removed, "was removed"), (group, "groups others")):
            with pytest.raises(ValidationError) as refused:
                listing_status_refresh_request(tenant=reseller, actor=None, business=business)
            assert words in refused.value.message_dict["business_number"][0]


@pytest.mark.django_db
def test_a_requested_refresh_gives_one_instruction_not_two(member_client, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    """The page reloads by itself while the refresh is on its way; no message also asks the
    reader to reload it."""
    monkeypatch.setattr(tasks_ui.listing_status_refresh_task, "delay", lambda **kwargs: None)
    client, membership = member_client(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(detail_url(business))
    page = client.get(response.url).content.decode()
    assert "Refresh requested" in page and "this page reloads by itself" in page
    assert "Reload this page" not in page



@pytest.mark.parametrize(("country", "name", "expected"), [
    ("US", "United States", ["1 Main St", "Austin, TX 78781", "United States"]),
    ("DE", "", ["1 Main St", "78781 Austin, TX", "DE"]),
])
def test_an_address_reads_as_its_country_writes_it(country, name, expected):
    from accounts.models import Business

    business = Business(address1="1 Main St", city="Austin", state="TX", zip="78781",
                        country_code=country, country_name=name)
    assert business.address_lines == expected

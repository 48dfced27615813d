"""The reseller dashboard: totals, charts, last syncs, locations needing action."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role, SyncRun
from tests.accounts.ui_factories import (
    ReviewCountFactory,
    StatusReportFactory,
    SyncRunFactory,
    make_tree,
)
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db



def dashboard(client, reseller):
    response = client.get(reverse("tenant_home", args=[reseller.slug]))
    assert response.status_code == 200
    return response


def test_dashboard_totals_for_the_whole_tenant(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    tree = make_tree(reseller)
    ReviewCountFactory(reseller=reseller)
    SyncRunFactory(reseller=reseller)
    BusinessFactory(name="Someone else's", city="Elsewhere")  # another tenant: not counted
    response = dashboard(client, reseller)
    d = response.context["dashboard"]
    assert d.location_count == 4  # a, b, c, d (e is removed)
    assert d.container_count == 3
    assert d.locations_by_status == {"active": 2, "demo": 1, "inactive": 1}
    assert d.health["synced"] == 5 + 2 + 9
    assert d.health["need_updates"] == 3
    assert d.health["reports"] == 3 and d.health["needs_action"] == 1
    # The average of the rated reviews' stars, (5*20 + 4*12 + 3*5 + 2*3 + 1*2) / 42, not the
    # provider's figure (4.20 here), which counts reviews without a rating as zero stars.
    assert d.reviews.review_count == 42 and str(d.reviews.average_rating) == "4.07"
    assert [b.pk for b in d.needs_action] == [tree.a.pk]
    page = response.content.decode()
    assert page.count("<svg") >= 3  # statuses, listing health, ratings
    assert "Locations by status: Active 2, Demo 1, Inactive 1" in page
    assert reverse("business_detail", args=[reseller.slug, tree.a.remote_id]) in page
    assert "Elsewhere" not in page


def test_last_five_sync_runs_link_to_their_detail(member_client):
    client, membership = member_client(Role.VIEWER)
    runs = [SyncRunFactory(reseller=membership.reseller, status=status)
            for status in [SyncRun.Status.FAILED] + [SyncRun.Status.SUCCEEDED] * 5]
    SyncRunFactory(status=SyncRun.Status.PARTIAL)  # another tenant's
    response = dashboard(client, membership.reseller)
    shown = response.context["dashboard"].sync_runs
    assert [run.pk for run in shown] == [run.pk for run in reversed(runs)][:5]
    page = response.content.decode()
    assert reverse("sync_run_detail", args=[membership.reseller.slug, runs[-1].pk]) in page
    assert reverse("sync_run_detail", args=[membership.reseller.slug, runs[0].pk]) not in page


def test_needs_action_lists_the_top_ten_worst_first(member_client):
    client, membership = member_client(Role.VIEWER)
    for n in range(1, 13):
        business = BusinessFactory(reseller=membership.reseller, name=f"Shop {n:02d}")
        StatusReportFactory(business=business, needs_action=True, need_updates_count=n,
                            total_sites=40)
    d = dashboard(client, membership.reseller).context["dashboard"]
    assert [b.name for b in d.needs_action] == [f"Shop {n:02d}" for n in range(12, 2, -1)]
    assert d.health["needs_action"] == 12


def test_empty_tenant_renders(member_client):
    client, membership = member_client(Role.VIEWER)
    page = dashboard(client, membership.reseller).content.decode()
    assert "No sync has run yet" in page and "No location needs action" in page


def test_subtree_member_sees_only_their_totals(member_client):
    reseller = ResellerFactory()
    tree = make_tree(reseller)
    ReviewCountFactory(reseller=reseller, review_count=999)  # the whole account's
    client, membership = member_client(Role.VIEWER, reseller=reseller, limited_to=tree.ent)
    response = dashboard(client, reseller)
    d = response.context["dashboard"]
    assert d.location_count == 2 and d.container_count == 1
    assert d.locations_by_status == {"active": 1, "demo": 1}
    assert d.health["synced"] == 5 + 2
    assert d.reviews is None  # never the whole account's figures
    page = response.content.decode()
    assert "999" not in page and "Pizza Place" not in page and "Corner Bakery" not in page

    ReviewCountFactory(reseller=reseller, remote_id=tree.ent.remote_id, review_count=7)
    assert dashboard(client, reseller).context["dashboard"].reviews.review_count == 7


def test_another_tenants_member_gets_404(client):
    mine, other = MembershipFactory(), MembershipFactory()
    client.force_login(other.user)
    assert client.get(reverse("tenant_home", args=[mine.reseller.slug])).status_code == 404


def test_dashboard_query_count_does_not_grow_with_rows(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    ReviewCountFactory(reseller=reseller)

    def queries_for(count):
        for n in range(count):
            business = BusinessFactory(reseller=reseller)
            # One tier of work (a few sites each): the rows shown come from one query.
            StatusReportFactory(business=business, needs_action=True, need_updates_count=n + 1,
                                total_sites=1000)
            SyncRunFactory(reseller=reseller)
        with CaptureQueriesContext(connection) as queries:
            response = dashboard(client, reseller)
        return len(queries), response.context["dashboard"].location_count

    few, locations_few = queries_for(5)
    many, locations_many = queries_for(40)
    assert (locations_few, locations_many) == (5, 45)
    assert few == many
    # One more than before the triage: the locations needing action counted by their work;
    # and one for the trends (the history's days, charts and comparisons in one read).
    assert many <= 12


@pytest.mark.parametrize("unrated_bucket", [{}, {"0": 29}])
def test_reviews_without_a_rating_are_counted_but_not_averaged(client, unrated_bucket):
    """1,199 reviews of which 29 have no rating: the average is over the 1,170 rated ones, and
    the page says why the bars add up to less than the total, whether the provider leaves the
    unrated reviews out of its breakdown or files them under a rating of 0 (as the sandbox
    does)."""
    from accounts.models import Role
    from tests.accounts.ui_factories import ReviewCountFactory
    from tests.factories import MembershipFactory

    membership = MembershipFactory(role=Role.VIEWER)
    ReviewCountFactory(reseller=membership.reseller, review_count=1199, average_rating="3.86",
                       count_by_rating={"5": 519, "4": 327, "3": 167, "2": 73, "1": 84,
                                        **unrated_bucket})
    client.force_login(membership.user)
    response = client.get(reverse("tenant_home", args=[membership.reseller.slug]))
    reviews = response.context["dashboard"].reviews
    assert reviews.rated_count == 1170 and reviews.unrated_count == 29
    assert str(reviews.average_rating) == "3.96"
    page = response.content.decode()
    assert "over the 1170 with a rating" in page
    assert "29 reviews without a star rating are counted but not in the bars" in page


"""Tab "Hierarchy": a location's levels edited as a whole, sent through the outbox."""

import pytest
from django.urls import reverse

from accounts.models import AuditEvent, Business, HierarchyMapping, Role
from listings.outbox_handlers import HierarchyUpdate
from listings.selectors import hierarchy_level_list, hierarchy_requested_levels
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from provider import ProviderClient
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.accounts.ui_factories import LevelFactory, make_tree
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory


def url(business, reseller=None):
    return reverse("business_hierarchy", args=[(reseller or business.reseller).slug,
                                               business.remote_id])


def form_data(*rows, total=None, initial=0, delete=()):
    """POST data of the formset: rows of (name, value)."""
    data = {"levels-TOTAL_FORMS": str(total or len(rows)),
            "levels-INITIAL_FORMS": str(initial),
            "levels-MIN_NUM_FORMS": "0", "levels-MAX_NUM_FORMS": "1000"}
    for index, (name, value) in enumerate(rows):
        data[f"levels-{index}-level_name"] = name
        data[f"levels-{index}-level_value"] = value
        if index in delete:
            data[f"levels-{index}-DELETE"] = "on"
    return data


@pytest.fixture
def location(member_client):
    client, membership = member_client(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller)
    LevelFactory(business=business, level_name="Region", level_value="West")
    LevelFactory(business=business, level_name="District", level_value="D7")
    return client, membership, business


def entries():
    return list(OutboxEntry.unscoped.filter(kind=OutboxEntry.Kind.HIERARCHY_UPDATE))


@pytest.mark.django_db
class TestPage:
    def test_member_sees_the_current_levels_and_the_form(self, location):
        client, membership, business = location
        response = client.get(url(business))
        assert response.status_code == 200
        page = response.content.decode()
        assert "<th scope=\"row\">District</th><td>D7</td>" in page
        assert "replaces the whole hierarchy mapping" in page
        # In the order the levels were entered (Region first), not alphabetical.
        assert page.index("<th scope=\"row\">Region</th>") < page.index(
            "<th scope=\"row\">District</th>")
        formset = response.context["formset"]
        assert [f.initial for f in formset.forms[:2]] == [
            {"level_name": "Region", "level_value": "West"},
            {"level_name": "District", "level_value": "D7"}]
        assert len(formset.forms) == 4  # the two levels and two rows to add levels

    def test_viewer_sees_the_levels_but_no_form_and_cannot_post(self, member_client):
        client, membership = member_client(Role.VIEWER)
        business = BusinessFactory(reseller=membership.reseller)
        LevelFactory(business=business)
        page = client.get(url(business)).content.decode()
        assert "West" in page
        assert "<form method=\"post\"" not in page.split("Sign out")[-1]
        assert client.post(url(business), form_data(("Region", "East"))).status_code == 403
        assert entries() == []

    def test_another_tenants_member_and_business_get_404(self, client, member_client):
        mine = MembershipFactory()
        business = BusinessFactory(reseller=mine.reseller)
        other_client, other = member_client(Role.OWNER)
        assert other_client.get(url(business)).status_code == 404
        assert other_client.get(url(business, other.reseller)).status_code == 404
        assert other_client.post(url(business, other.reseller),
                                 form_data(("Region", "East"))).status_code == 404
        assert entries() == []

    def test_subtree_member_gets_404_outside(self, member_client):
        reseller = ResellerFactory()
        tree = make_tree(reseller)
        client, membership = member_client(Role.MANAGER, reseller=reseller, limited_to=tree.ent)
        assert client.get(url(tree.d)).status_code == 404
        assert client.post(url(tree.d), form_data(("Region", "East"))).status_code == 404
        assert client.get(url(tree.a)).status_code == 200
        assert entries() == []

    def test_containers_have_no_levels_to_edit(self, member_client):
        client, membership = member_client(Role.MANAGER)
        tree = make_tree(membership.reseller)
        page = client.get(url(tree.ent)).content.decode()
        assert "Hierarchy levels belong to" in page
        client.post(url(tree.ent), form_data(("Region", "East")))
        assert entries() == []


@pytest.mark.django_db
class TestValidation:
    def test_an_empty_value_is_an_error_on_that_field_and_nothing_is_lost(self, location):
        client, membership, business = location
        response = client.post(url(business), form_data(("District", ""), ("Region", "North"),
                                                        ("Brand", "Burgers"), initial=2))
        assert response.status_code == 200
        formset = response.context["formset"]
        assert "level_value" in formset.forms[0].errors
        assert not formset.forms[1].errors and not formset.forms[2].errors
        page = response.content.decode()
        assert 'value="North"' in page and 'value="Burgers"' in page  # what was typed stays
        assert 'aria-invalid="true"' in page
        assert entries() == []

    def test_a_new_level_without_a_value_or_a_value_without_a_name(self, location):
        client, membership, business = location
        response = client.post(url(business), form_data(("Region", "West"), ("Brand", ""),
                                                        ("", "Orphan"), initial=1))
        forms = response.context["formset"].forms
        assert "level_value" in forms[1].errors
        assert "level_name" in forms[2].errors
        assert entries() == []

    def test_the_same_level_twice_is_refused(self, location):
        client, membership, business = location
        response = client.post(url(business), form_data(("Region", "West"), ("region", "East")))
        assert "level_name" in response.context["formset"].forms[1].errors
        assert entries() == []

    def test_removing_every_level_is_refused(self, location):
        client, membership, business = location
        response = client.post(url(business), form_data(("District", "D7"), ("Region", "West"),
                                                        initial=2, delete=(0, 1)))
        assert response.context["formset"].non_form_errors()
        assert entries() == []

    def test_a_level_name_longer_than_the_provider_allows(self, location):
        client, membership, business = location
        response = client.post(url(business), form_data(("x" * 201, "West")))
        assert "level_name" in response.context["formset"].forms[0].errors
        assert entries() == []


@pytest.mark.django_db
def test_saving_queues_the_whole_mapping(location):
    client, membership, business = location
    response = client.post(url(business), form_data(
        ("District", "D8"), ("Region", "West"), ("Brand", " Burgers "), ("", ""),
        initial=2))
    assert response.status_code == 302
    [entry] = entries()
    assert entry.business_id == business.pk and entry.created_by == membership.user
    assert entry.payload == {"levels": {"District": "D8", "Region": "West", "Brand": "Burgers"},
                             "order": ["District", "Region", "Brand"]}
    assert entry.state == OutboxEntry.State.PENDING
    assert AuditEvent.unscoped.filter(action="hierarchy.update_requested").exists()
    page = client.get(response.url).content.decode()
    assert "Pending:" in page
    # The mirror keeps the accepted values until the provider accepts the change.
    with tenant_scope(membership.reseller):
        assert HierarchyMapping.objects.get(business=business, level_name="District"
                                            ).level_value == "D7"
    # The form starts from the pending change, not from the older accepted values, in the
    # order it was entered.
    assert [f.initial for f in client.get(response.url).context["formset"].forms[:3]] == [
        {"level_name": "District", "level_value": "D8"},
        {"level_name": "Region", "level_value": "West"},
        {"level_name": "Brand", "level_value": "Burgers"}]


@pytest.mark.django_db
def test_removing_one_level_on_purpose(location):
    client, membership, business = location
    client.post(url(business), form_data(("District", "D7"), ("Region", "West"), initial=2,
                                         delete=(0,)))
    assert entries()[0].payload == {"levels": {"Region": "West"}, "order": ["Region"]}


@pytest.mark.django_db
def test_a_rejected_change_shows_the_providers_message(location):
    client, membership, business = location
    OutboxEntry.unscoped.create(
        reseller=membership.reseller, business=business, kind=OutboxEntry.Kind.HIERARCHY_UPDATE,
        payload={"levels": {"Region": "Nowhere"}}, state=OutboxEntry.State.REJECTED,
        provider_code=1043, provider_message="Business is not a location")
    response = client.get(url(business))
    page = response.content.decode()
    assert "Rejected:" in page and "Business is not a location" in page and "1043" in page
    assert response.context["formset"].forms[0].initial == {"level_name": "Region",
                                                            "level_value": "Nowhere"}


@pytest.mark.django_db
def test_accepting_replaces_the_mirrored_levels(location):
    client, membership, business = location
    entry = OutboxEntry.unscoped.create(
        reseller=membership.reseller, business=business, kind=OutboxEntry.Kind.HIERARCHY_UPDATE,
        payload={"levels": {"Region": "East", "Brand": "Burgers"}})
    with tenant_scope(membership.reseller):
        HierarchyUpdate().on_accepted(entry, None)
        levels = dict(HierarchyMapping.objects.filter(business=business)
                      .values_list("level_name", "level_value"))
    assert levels == {"Region": "East", "Brand": "Burgers"}  # District is gone


@pytest.mark.django_db
def test_the_order_entered_is_kept_from_the_form_to_the_page(location):
    """Levels typed Zone, Brand, Area (not alphabetical) stay in that order: in the change,
    in the form while it is pending, in the mirror once accepted and on the page."""
    client, membership, business = location
    client.post(url(business), form_data(("Zone", "Z1"), ("Brand", "Burgers"), ("Area", "A9"),
                                         initial=2))
    [entry] = entries()
    with tenant_scope(membership.reseller):
        assert list(hierarchy_requested_levels(entry)) == ["Zone", "Brand", "Area"]
    pending = client.get(url(business)).context["formset"]
    assert [f.initial["level_name"] for f in pending.forms[:3]] == ["Zone", "Brand", "Area"]
    with tenant_scope(membership.reseller):
        HierarchyUpdate().on_accepted(entry, None)
        assert [row.level_name for row in hierarchy_level_list(
            tenant=membership.reseller, business=business)] == ["Zone", "Brand", "Area"]
    OutboxEntry.unscoped.filter(pk=entry.pk).update(state=OutboxEntry.State.ACCEPTED)
    response = client.get(url(business))
    page = response.content.decode()
    assert page.index(">Zone</th>") < page.index(">Brand</th>") < page.index(">Area</th>")
    assert [f.initial["level_name"] for f in response.context["formset"].forms[:3]] == [
        "Zone", "Brand", "Area"]


@pytest.mark.django_db
def test_a_change_queued_before_the_order_was_kept_still_reads(location):
    client, membership, business = location
    entry = OutboxEntry.unscoped.create(
        reseller=membership.reseller, business=business, kind=OutboxEntry.Kind.HIERARCHY_UPDATE,
        payload={"levels": {"Region": "East"}})
    assert hierarchy_requested_levels(entry) == {"Region": "East"}


# -- against the sandbox over HTTP -------------------------------------------------------------

KEY = "ui-hierarchy-test-partner-key"


@pytest.fixture
def seeded(live_server, settings, tmp_path, monkeypatch):
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    monkeypatch.setattr(outbox, "_queue_send", lambda *args: None)  # the test sends itself
    result = seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))
    reseller = ResellerFactory(api_key=KEY, account_number=result["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox")
    return reseller, result


def send_all(reseller):
    with tenant_scope(reseller):
        for entry in OutboxEntry.objects.all():
            outbox.outbox_send(tenant=reseller, entry_id=entry.pk)
    return entries()


@pytest.mark.django_db(transaction=True)
def test_a_saved_hierarchy_is_accepted_by_the_provider(seeded, member_client):
    reseller, result = seeded
    number = result["location_numbers"][0]
    location = BusinessFactory(reseller=reseller, remote_id=number)
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    response = client.post(url(location), form_data(("Region", "West"), ("Brand", "Burgers")))
    assert response.status_code == 302

    sent = []
    original = ProviderClient.update_hierarchy

    def spy(self, business_id, mapping):
        sent.append(list(mapping))
        return original(self, business_id, mapping)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProviderClient, "update_hierarchy", spy)
        [entry] = send_all(reseller)
    assert entry.state == OutboxEntry.State.ACCEPTED
    assert sent == [["Region", "Brand"]]  # on the wire in the order entered
    held = sandbox.HierarchyMapping.objects.get(location__number=number)
    assert held.levels == {"Region": "West", "Brand": "Burgers"}
    with tenant_scope(reseller):
        assert dict(HierarchyMapping.objects.filter(business=location)
                    .values_list("level_name", "level_value")) == held.levels
    page = client.get(url(location)).content.decode()
    assert "Accepted:" in page and "<td>Burgers</td>" in page
    assert page.index(">Region</th>") < page.index(">Brand</th>")


@pytest.mark.django_db(transaction=True)
def test_the_providers_refusal_is_shown(seeded, member_client):
    """A row the portal takes for a location that the provider knows as an enterprise."""
    reseller, result = seeded
    not_a_location = BusinessFactory(reseller=reseller, remote_id=result["enterprise_ids"][0],
                                     type=Business.Type.BUSINESS)
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    client.post(url(not_a_location), form_data(("Region", "West")))
    [entry] = send_all(reseller)
    assert entry.state == OutboxEntry.State.REJECTED and entry.provider_message
    page = client.get(url(not_a_location)).content.decode()
    assert "Rejected:" in page and entry.provider_message in page
    with tenant_scope(reseller):
        assert not HierarchyMapping.objects.exists()

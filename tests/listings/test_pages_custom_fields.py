"""The custom fields page: list, create form for every type, changes on their way or refused."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role
from listings.models import CustomField
from listings.services import custom_field_create
from outbox.models import OutboxEntry
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(500)



def url(reseller):
    return reverse("custom_field_list", args=[reseller.slug])


def add_field(reseller, name="Loyalty tier", **extra):
    return CustomField.unscoped.create(reseller=reseller, remote_id=next(_ids), field_name=name,
                                       type=extra.pop("type", "TEXT"), **extra)


def refused(reseller, field_name, **fields):
    """A custom field queued, then refused by the provider as a duplicate of its name."""
    entry = custom_field_create(tenant=reseller, actor=None, field_name=field_name, **fields)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(
        state=OutboxEntry.State.REJECTED, provider_code=5022,
        provider_message=f"Another custom field with the same name exists: {field_name}")
    return entry


def valid(**changes):
    data = {"field_name": "Store manager", "type": "TEXT", "default_value": "",
            "default_date": "", "drop_down_options": "",
            "field_description": "Who runs the store", "filterable": ""}
    data.update(changes)
    return data


@pytest.fixture
def manager(member_client):
    client, membership = member_client(Role.MANAGER)
    return client, membership.reseller


def test_a_member_sees_the_fields_of_their_account_only(member_client):
    client, membership = member_client(Role.VIEWER)
    add_field(membership.reseller, "Loyalty tier", type="DROPDOWN_SINGLE",
              drop_down_options=["Gold", "Silver"])
    add_field(ResellerFactory(), "Someone else's field")
    page = client.get(url(membership.reseller)).content.decode()
    assert "Loyalty tier" in page and "Gold, Silver" in page
    assert "Someone else" not in page


def test_another_tenants_member_gets_404(member_client):
    client, _ = member_client(Role.OWNER)
    assert client.get(url(ResellerFactory())).status_code == 404
    assert client.post(url(ResellerFactory()), valid()).status_code == 404


def test_a_viewer_sees_no_form_and_cannot_post(member_client):
    client, membership = member_client(Role.VIEWER)
    page = client.get(url(membership.reseller)).content.decode()
    assert "Create a custom field" not in page
    assert f'action="{url(membership.reseller)}"' not in page
    assert client.post(url(membership.reseller), valid()).status_code == 403
    assert not OutboxEntry.unscoped.exists()


def test_a_subtree_member_is_refused_the_account_wide_page(member_client):
    reseller = ResellerFactory()
    client, _ = member_client(Role.MANAGER, reseller=reseller,
                              limited_to=BusinessFactory(reseller=reseller))
    assert client.get(url(reseller)).status_code == 403
    assert client.post(url(reseller), valid()).status_code == 403


@pytest.mark.parametrize("field_type,options,default,label", [
    ("TEXT", "", "n/a", "Text"), ("URL", "", "https://example.com/info", "URL"),
    ("NUMBER", "", "3.5", "Number"),
    ("DROPDOWN_SINGLE", "Gold\nSilver", "Gold", "Drop-down (one choice)"),
    ("DROPDOWN_MULTI", "Wifi\nParking\nPets", "Wifi, Pets", "Drop-down (several choices)"),
    ("TEXT_RAW", "", "<b>raw</b>", "Raw text"),
])
def test_every_type_can_be_created_and_is_queued(manager, field_type, options, default, label):
    client, reseller = manager
    response = client.post(url(reseller), valid(type=field_type, drop_down_options=options,
                                                 default_value=default, filterable="on"))
    assert response.status_code == 302
    entry = OutboxEntry.unscoped.get()
    assert entry.kind == OutboxEntry.Kind.CUSTOM_FIELD_CREATE and entry.reseller == reseller
    expected = {"fieldName": "Store manager", "type": field_type, "defaultValue": default,
                "fieldDescription": "Who runs the store", "filterable": "true"}
    if options:
        expected["dropDownOptions"] = options.split("\n")
    assert entry.payload == expected
    page = client.get(url(reseller)).content.decode()
    # The change names the type in words, never its code.
    assert f"Custom field Store manager, type {label}" in page and "Pending" in page
    assert f"({field_type})" not in page


def test_a_date_default_is_picked_as_a_date_and_sent_as_the_provider_writes_it(manager):
    client, reseller = manager
    form_page = client.get(url(reseller)).content.decode()
    assert 'type="date" name="default_date"' in form_page
    response = client.post(url(reseller), valid(type="DATE", default_date="2026-12-31"))
    assert response.status_code == 302
    assert OutboxEntry.unscoped.get().payload["defaultValue"] == "12/31/2026"


def test_a_date_typed_in_the_text_box_without_javascript_is_still_read(manager):
    client, reseller = manager
    assert client.post(url(reseller), valid(type="DATE", default_value="2026-12-31")
                       ).status_code == 302
    assert OutboxEntry.unscoped.get().payload["defaultValue"] == "12/31/2026"


@pytest.mark.parametrize("changes,field,message", [
    ({"field_name": ""}, "field_name", "This field is required."),
    ({"field_name": "x" * 201}, "field_name", "at most 200 characters"),
    ({"type": "COLOUR"}, "type", "Select a valid choice"),
    ({"type": "DROPDOWN_SINGLE"}, "drop_down_options", "Give at least one option"),
    ({"type": "DROPDOWN_MULTI", "drop_down_options": "A\na"}, "drop_down_options",
     "is listed twice"),
    ({"type": "TEXT", "drop_down_options": "A\nB"}, "drop_down_options",
     "Options are only for the drop-down types"),
    ({"type": "NUMBER", "default_value": "many"}, "default_value", "must be a number"),
    ({"type": "URL", "default_value": "ftp://x.example"}, "default_value", "http(s) URL"),
    ({"type": "DATE", "default_date": "2026-02-30"}, "default_date", "Default date: choose"),
    ({"type": "DATE", "default_value": "next Tuesday"}, "default_value",
     "A date field takes its default in “Default date”"),
    ({"type": "DATE", "default_value": "x", "default_date": "2026-12-31"}, "default_value",
     "A date field takes one default"),
    ({"type": "TEXT", "default_date": "2026-12-31"}, "default_date",
     "Only a date field takes a default date"),
    ({"type": "DROPDOWN_SINGLE", "drop_down_options": "A\nB", "default_value": "C"},
     "default_value", "must be one of the options"),
    ({"type": "DROPDOWN_MULTI", "drop_down_options": "A\nB", "default_value": "A, C"},
     "default_value", "Not an option: C"),
])
def test_each_rule_is_reported_on_its_field_and_nothing_is_lost(manager, changes, field,
                                                               message):
    client, reseller = manager
    data = valid(**changes)
    response = client.post(url(reseller), data)
    assert response.status_code == 200
    form = response.context["form"]
    assert field in form.errors
    assert any(message in error for error in form.errors[field])
    assert list(form.errors) == [field]
    # What the user typed comes back in the form.
    assert form["field_description"].value() == "Who runs the store"
    assert form["field_name"].value() == data["field_name"]
    assert not OutboxEntry.unscoped.exists()


def test_a_name_already_known_is_refused_ignoring_case(manager, scope):
    client, reseller = manager
    add_field(reseller, "Loyalty Tier")
    response = client.post(url(reseller), valid(field_name="loyalty tier"))
    assert "already exists" in response.context["form"].errors["field_name"][0]
    scope(reseller)
    custom_field_create(tenant=reseller, actor=None, field_name="Queued name", type="TEXT")
    response = client.post(url(reseller), valid(field_name="QUEUED NAME"))
    assert "being created" in response.context["form"].errors["field_name"][0]


def test_a_refused_duplicate_shows_the_providers_message_on_the_name(manager, scope):
    client, reseller = manager
    scope(reseller)
    entry = refused(reseller, "Region", type="TEXT", field_description="Sales region")
    page = client.get(url(reseller)).content.decode()
    assert "Rejected" in page and "Another custom field with the same name exists" in page
    assert f"?fix={entry.pk}" in page

    response = client.get(url(reseller) + f"?fix={entry.pk}")
    form = response.context["form"]
    assert "same name exists" in form.errors["field_name"][0]
    assert form["field_description"].value() == "Sales region"


def test_a_refused_date_field_comes_back_with_its_day_in_the_date_box(manager, scope):
    client, reseller = manager
    scope(reseller)
    entry = refused(reseller, "Renewal", type="DATE", default_value="12/31/2026")
    form = client.get(url(reseller) + f"?fix={entry.pk}").context["form"]
    assert form["default_date"].value() == "2026-12-31"
    assert form["default_value"].value() == ""
    assert 'value="2026-12-31"' in str(form["default_date"])


def test_the_list_shows_types_and_date_defaults_in_words_and_the_id_aside(member_client):
    client, membership = member_client(Role.VIEWER)
    add_field(membership.reseller, "Renewal", type="DATE", default_value="12/31/2026")
    add_field(membership.reseller, "Parking", type="DROPDOWN_MULTI",
              drop_down_options=["Street", "Garage"])
    page = client.get(url(membership.reseller)).content.decode()
    assert "Dec 31, 2026" in page and "12/31/2026" not in page
    assert "Drop-down (several choices)" in page and "DROPDOWN_MULTI" not in page
    assert "Field id " in page and '<th scope="col">Id</th>' not in page


def test_fixing_another_tenants_change_is_404(manager, scope):
    client, reseller = manager
    other = ResellerFactory()
    scope(other)
    entry = custom_field_create(tenant=other, actor=None, field_name="Theirs", type="TEXT")
    OutboxEntry.unscoped.filter(pk=entry.pk).update(state=OutboxEntry.State.REJECTED)
    assert client.get(url(reseller) + f"?fix={entry.pk}").status_code == 404


def test_the_service_refuses_options_on_a_type_without_them(scope):
    reseller = scope(ResellerFactory())
    with pytest.raises(ValueError):
        custom_field_create(tenant=reseller, actor=None, field_name="A", type="TEXT",
                            drop_down_options=["x"])
    with pytest.raises(ValueError):
        custom_field_create(tenant=reseller, actor=None, field_name="A",
                            type="DROPDOWN_MULTI")
    assert not OutboxEntry.unscoped.exists()


def test_the_query_count_does_not_grow_with_fields(manager, scope):
    client, reseller = manager
    add_field(reseller)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(reseller)).status_code == 200
        return len(queries)

    few = count()
    scope(reseller)
    for index in range(30):
        add_field(reseller, f"Field {index}")
        custom_field_create(tenant=reseller, actor=None, field_name=f"New {index}", type="TEXT")
    assert count() == few == 7  # with the bell's unread count

"""The custom-field rules live in the service (`custom_field_validate`): the page's form and the
API only read the input, run the rules and show their messages on the fields they name."""

import datetime as dt
import itertools

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.models import Role
from listings.forms import CustomFieldForm
from listings.models import CustomField
from listings.services import custom_field_create, custom_field_validate
from outbox.models import OutboxEntry
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(900)


@pytest.fixture
def tenant(scope):
    return scope(ResellerFactory())


def validate(tenant, **changes):
    values = {"field_name": "Store manager", "type": "TEXT"}
    values.update(changes)
    return custom_field_validate(tenant=tenant, **values)


def refusal(tenant, **changes) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        validate(tenant, **changes)
    return caught.value.message_dict


@pytest.mark.parametrize("changes,field,message", [
    ({"field_name": ""}, "field_name", "This field is required."),
    ({"field_name": "   "}, "field_name", "This field is required."),
    ({"field_name": "x" * 201}, "field_name",
     "Ensure this value has at most 200 characters (it has 201)."),
    ({"type": "COLOUR"}, "type",
     "Select a valid choice. COLOUR is not one of the available choices."),
    ({"type": "DROPDOWN_SINGLE"}, "drop_down_options",
     "Give at least one option (one per line) for a drop-down field."),
    ({"type": "DROPDOWN_MULTI", "drop_down_options": ["A", "a"]}, "drop_down_options",
     "“a” is listed twice."),
    ({"type": "TEXT", "drop_down_options": ["A", "B"]}, "drop_down_options",
     "Options are only for the drop-down types: clear them or choose a drop-down type."),
    ({"type": "NUMBER", "default_value": "many"}, "default_value",
     "The default of a number field must be a number, e.g. 42 or 3.5."),
    ({"type": "URL", "default_value": "ftp://x.example"}, "default_value",
     "The default of a URL field must be an http(s) URL."),
    ({"type": "DATE", "default_value": "2026-02-30"}, "default_value",
     "The default of a date field must be a real day, e.g. 2026-12-31."),
    ({"type": "DATE", "default_value": "31/12/2026"}, "default_value",
     "The default of a date field must be a real day, e.g. 2026-12-31."),
    ({"type": "DROPDOWN_SINGLE", "drop_down_options": ["A", "B"], "default_value": "C"},
     "default_value", "The default must be one of the options."),
    ({"type": "DROPDOWN_MULTI", "drop_down_options": ["A", "B"], "default_value": "A, C"},
     "default_value", "Not an option: C."),
    ({"default_value": "y" * 1001}, "default_value",
     "Ensure this value has at most 1000 characters (it has 1001)."),
    ({"field_description": "d" * 1001}, "field_description",
     "Ensure this value has at most 1000 characters (it has 1001)."),
])
def test_each_rule_names_its_field(tenant, changes, field, message):
    assert refusal(tenant, **changes) == {field: [message]}


@pytest.mark.parametrize("given", ["2026-12-31", "12/31/2026", dt.date(2026, 12, 31)])
def test_a_date_default_is_sent_as_the_provider_writes_it(tenant, given):
    checked = validate(tenant, type="DATE", default_value=given)
    assert checked["default_value"] == "12/31/2026"


def test_every_broken_rule_is_reported_at_once(tenant):
    CustomField.objects.create(reseller=tenant, remote_id=next(_ids), field_name="Tier",
                               type="TEXT")
    errors = refusal(tenant, field_name="tier", type="DROPDOWN_MULTI",
                     drop_down_options=["Gold", "gold"], default_value="Bronze")
    assert list(errors) == ["field_name", "drop_down_options", "default_value"]


def test_an_unknown_type_hides_the_rules_that_depend_on_it(tenant):
    assert list(refusal(tenant, type="COLOUR", drop_down_options=["A"],
                        default_value="x")) == ["type"]


def test_a_name_taken_by_a_mirrored_or_a_queued_field_is_refused_ignoring_case(tenant, scope):
    CustomField.objects.create(reseller=tenant, remote_id=next(_ids), field_name="Loyalty Tier",
                               type="TEXT")
    assert "already exists" in refusal(tenant, field_name=" loyalty tier ")["field_name"][0]
    custom_field_create(tenant=tenant, actor=None, field_name="Queued name", type="TEXT")
    assert "being created" in refusal(tenant, field_name="QUEUED NAME")["field_name"][0]
    # Another reseller's names are no concern of this one.
    other = scope(ResellerFactory())
    assert validate(other, field_name="Loyalty Tier")["field_name"] == "Loyalty Tier"


def test_the_checked_values_are_those_to_queue(tenant):
    checked = validate(tenant, field_name="  Parking ", type="DROPDOWN_SINGLE",
                       drop_down_options=[" Street ", "", "  ", "Garage"],
                       default_value=" Street ", field_description=" Where to park ",
                       filterable=1)
    assert checked == {"field_name": "Parking", "type": "DROPDOWN_SINGLE",
                       "default_value": "Street", "drop_down_options": ["Street", "Garage"],
                       "field_description": "Where to park", "filterable": True}
    entry = custom_field_create(tenant=tenant, actor=None, **checked)
    assert entry.payload["dropDownOptions"] == ["Street", "Garage"]
    assert entry.payload["fieldName"] == "Parking"


def test_the_queuing_service_leaves_names_to_the_provider(tenant):
    """A duplicate the portal knows of still reaches the provider when queued directly (the
    provider is the authority on names: 5022); only the checked path refuses it."""
    CustomField.objects.create(reseller=tenant, remote_id=next(_ids), field_name="Region",
                               type="TEXT")
    entry = custom_field_create(tenant=tenant, actor=None, field_name="REGION", type="TEXT")
    assert entry.kind == OutboxEntry.Kind.CUSTOM_FIELD_CREATE


def test_the_form_shows_the_services_messages_on_its_fields(tenant):
    form = CustomFieldForm({"field_name": "A", "type": "DROPDOWN_MULTI",
                            "drop_down_options": "Gold\ngold", "default_value": "Bronze"},
                           tenant=tenant)
    assert not form.is_valid()
    assert form.errors == {"drop_down_options": ["“gold” is listed twice."],
                           "default_value": ["Not an option: Bronze."]}


def test_the_form_keeps_its_own_message_where_the_input_could_not_be_read(tenant):
    form = CustomFieldForm({"field_name": "", "type": "COLOUR", "drop_down_options": "A"},
                           tenant=tenant)
    assert not form.is_valid()
    assert form.errors == {
        "field_name": ["This field is required."],
        "type": ["Select a valid choice. COLOUR is not one of the available choices."]}


def test_a_valid_form_hands_over_the_services_values(tenant):
    form = CustomFieldForm({"field_name": " Pets ", "type": "DROPDOWN_MULTI",
                            "drop_down_options": " Cats \n\n Dogs ", "default_value": "Cats",
                            "filterable": "on"}, tenant=tenant)
    assert form.is_valid(), form.errors
    assert {name: form.cleaned_data[name] for name in (
        "field_name", "drop_down_options", "default_value", "filterable")} == {
        "field_name": "Pets", "drop_down_options": ["Cats", "Dogs"], "default_value": "Cats",
        "filterable": True}


def test_the_api_answers_the_services_messages_on_the_same_fields(api_member):
    client, membership = api_member(Role.MANAGER)
    url = reverse("api_custom_field_list", args=[membership.reseller.slug])
    response = client.post(url, {"field_name": "A", "type": "DROPDOWN_MULTI",
                                 "drop_down_options": ["Gold", "gold"],
                                 "default_value": "Bronze"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["fields"] == {"drop_down_options": ["“gold” is listed twice."],
                              "default_value": ["Not an option: Bronze."]}
    assert body["message"] == "drop_down_options: “gold” is listed twice."
    response = client.post(url, {"field_name": "x" * 201, "type": "TEXT"}, format="json")
    assert response.json()["fields"] == {
        "field_name": ["Ensure this value has at most 200 characters (it has 201)."]}
    assert not OutboxEntry.unscoped.exists()


def test_the_api_reads_an_option_with_line_breaks_as_several_as_the_page_does(api_member):
    client, membership = api_member(Role.MANAGER)
    url = reverse("api_custom_field_list", args=[membership.reseller.slug])
    response = client.post(url, {"field_name": "Pets", "type": "DROPDOWN_MULTI",
                                 "drop_down_options": ["Cats\nDogs", " Birds "]}, format="json")
    assert response.status_code == 202, response.json()
    entry = OutboxEntry.unscoped.get()
    assert entry.payload["dropDownOptions"] == ["Cats", "Dogs", "Birds"]

"""The provider's create-listing codes beyond the interface's table (2285, 2286, 2516-2519, 6000,
6001) land on their field in the editor, with the provider's message and what it asks in the
form's words; a custom field of a type the provider does not know (5031) lands on its type."""

import pytest
from django.urls import reverse

from accounts.models import Role
from listings.editor.errors import error_field, rejection_text
from listings.services import custom_field_create
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.listings.test_editor_end_to_end import (  # noqa: F401 (fixtures)
    _fast,
    latest_version,
    location,
    manager,
    post_form,
    send_all,
)

# code -> (field, the provider's message)
CODES = {
    2285: ("profileListing.textMessageNumber", "Invalid text message number"),
    2286: ("profileListing.messagingBusinessLink", "Invalid whatsapp business link"),
    2516: ("additionalInfo.openingSoonDate",
           "Opening Soon Date can not be more than 1 year from now."),
    2517: ("additionalInfo.openingSoonDate",
           "Opening Soon date should not be less than current date."),
    2518: ("additionalInfo.businessStatus",
           "Business Status is mandatory to pass with reopen, opened on and opening soon date."),
    2519: ("thirdPartyListing.thirdPartyCategory",
           "Third party categories change for opening soon business is not allowed."),
    6000: ("businessInfo.location.subLocality",
           "The 'sub_locality' field is mandatory for addresses in New Zealand."),
    6001: ("businessInfo.location.subLocality",
           "The 'sub_locality' field cannot exceed 80 characters."),
}


@pytest.mark.parametrize("code", sorted(CODES))
def test_each_code_has_its_field_and_words_for_people(code):
    path, message = CODES[code]

    assert error_field(code, message) == path
    text = rejection_text(code, message)
    assert text.startswith(f"Rejected by the provider (code {code}): {message} ")
    assert len(text) > len(f"Rejected by the provider (code {code}): {message} ") + 20


def test_a_change_of_sub_categories_alone_lands_on_the_sub_categories():
    payload = {"thirdPartyListing": {"thirdPartySubCategories": ["Pizza"]}}

    assert error_field(2519, CODES[2519][1], payload) == "thirdPartyListing.thirdPartySubCategories"


@pytest.mark.parametrize("code", [2515, 2520])
def test_the_codes_without_a_stated_condition_are_shown_above_the_form(code):
    assert error_field(code, "Reopen date is not supported for this date.") is None
    assert rejection_text(code, "x") == f"Rejected by the provider (code {code}): x"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("changes", "code", "form", "name"), [
    ({"profiledetails-textMessageNumber": "text us"}, 2285, "profiledetails",
     "textMessageNumber"),
])
def test_the_sandbox_s_refusal_lands_on_the_field_in_the_form_s_words(
    manager, location, changes, code, form, name  # noqa: F811
):
    with tenant_scope(location.reseller):
        post_form(manager, location, **changes)
        send_all(location)
    version = latest_version(location)
    entry = version.outbox_entry
    assert (version.state, entry.provider_code, entry.provider_message) == (
        "rejected", code, CODES[code][1])

    editor = manager.get(reverse("listing_edit", args=[location.reseller.slug,
                                                        location.remote_id])).context["editor"]
    shown = next(f for f in editor.forms if f.prefix == form)
    assert shown.notices[name] == [rejection_text(code, CODES[code][1])]


@pytest.mark.django_db
def test_a_custom_field_of_an_unknown_type_is_shown_on_its_type(member_client):
    client, membership = member_client(Role.MANAGER)
    reseller = membership.reseller
    with tenant_scope(reseller):
        entry = custom_field_create(tenant=reseller, actor=None, field_name="Shoe size",
                                    type="TEXT")
    OutboxEntry.unscoped.filter(pk=entry.pk).update(
        state=OutboxEntry.State.REJECTED, provider_code=5031,
        provider_message="Method not implemented for unknown custom field type.")

    url = reverse("custom_field_list", args=[reseller.slug])
    form = client.get(url + f"?fix={entry.pk}").context["form"]
    assert "Method not implemented for unknown custom field type." in form.errors["type"][0]


@pytest.mark.django_db(transaction=True)
def test_a_new_zealand_address_without_its_sub_locality_is_refused_before_sending(
    manager, location  # noqa: F811
):
    before = OutboxEntry.unscoped.count()
    with tenant_scope(location.reseller):
        answer = post_form(manager, location, **{"address-countryCode": "NZ",
                                                 "address-city": "Auckland",
                                                 "address-subLocality": ""})
    assert OutboxEntry.unscoped.count() == before
    editor = answer.context["editor"]
    shown = next(f for f in editor.forms if f.prefix == "address")
    assert "needs its sub-locality" in " ".join(shown.errors["subLocality"])

"""The bulk change pages through the Django test client: choosing locations (the businesses
list's boxes, its filters, a node of the tree, typed numbers), choosing what to set with the
listing editor's own fields, the dry run and its page, the actions by role, a limited member,
another reseller, and the pages' query counts."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Business, Role
from bulk.models import BulkChange, BulkChangeItem
from bulk.services import bulk_change_create
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db

HOURS = "additionalInfo.hoursOfOperations"
DESCRIPTION = "businessInfo.mainBusinessDescription"


def week(start, end):
    return [{"day": 0, "isOpen": 1,
             "workingHours": [{"startHour": start * 3600, "endHour": end * 3600}]}]


def listing(name, hours):
    return {"businessInfo": {"name": name, "phone": "(512) 555-0100",
                             "location": {"address1": "1 Main St", "city": "Austin",
                                          "state": "TX", "zip": "78701", "countryCode": "US"}},
            "additionalInfo": {"businessStatus": "Open", "hoursOfOperations": hours}}


def accept(business, document, number=1):
    return ListingVersion.unscoped.create(reseller=business.reseller, business=business,
                                          number=number, document=document,
                                          accepted_at=timezone.now())


@pytest.fixture
def brand():
    """North brand (500) with Alpha, Bravo and Charlie, South brand (600) with Delta; Bravo's
    hours are already 08:00–18:00."""
    reseller = ResellerFactory()
    north = BusinessFactory(reseller=reseller, remote_id=500, name="North brand",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/500/")
    south = BusinessFactory(reseller=reseller, remote_id=600, name="South brand",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/600/")
    rows = {"north": north, "south": south}
    for number, name, parent, city, hours in (
            (501, "Alpha", north, "Austin", week(9, 17)),
            (502, "Bravo", north, "Austin", week(8, 18)),
            (503, "Charlie", north, "Dallas", week(9, 17)),
            (601, "Delta", south, "Austin", week(9, 17))):
        rows[number] = BusinessFactory(reseller=reseller, remote_id=number, name=name,
                                       parent=parent, depth=1, city=city,
                                       tree_path=f"{parent.tree_path}{number}/")
        accept(rows[number], listing(name, hours))
    return reseller, rows


def url(reseller, name, *args):
    return reverse(name, args=[reseller.slug, *args])


def hours_form(**extra):
    """The new page's form setting Monday 08:00–18:00, sent in waves of 1 then 2."""
    data = {"action": "dry_run", "parts": [HOURS], "lists": "replace", "waves": "1, 2",
            "action_required_threshold": "0", "hours0-start_0": "08:00", "hours0-end_0": "18:00"}
    data.update(extra)
    return data


def make_change(reseller, membership=None, businesses=None, **extra):
    with tenant_scope(reseller):
        return bulk_change_create(
            tenant=reseller, actor=membership.user if membership else None,
            membership=membership, businesses=businesses or {"node": 500},
            set={"additionalInfo": {"hoursOfOperations": week(8, 18)}}, waves=[1, 2],
            **extra)


def text(response):
    return html.unescape(re.sub(r"\s+", " ", response.content.decode()))


# -- the businesses list: choosing locations ----------------------------------------------------


def test_the_list_offers_boxes_and_the_bar_to_managers(member_client, brand):
    reseller, rows = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "business_list"), {"city": "Austin"}))
    assert 'id="bulk-selection"' in page
    for number in (501, 502, 601):
        assert f'name="numbers" value="{number}" form="bulk-selection"' in page
    # Only locations can be chosen: no box for the brands.
    assert 'value="500" form="bulk-selection"' not in page
    assert "Change the selected listings" in page
    # The current filters, carried to the new bulk change, and the locations they match.
    assert "Change all 3 matching locations" in page
    assert '<input type="hidden" name="filter" value="all"> ' \
           '<input type="hidden" name="filter_city" value="Austin">' in page
    # Without a filter, every location.
    assert "Change all 4 matching locations" in text(client.get(url(reseller, "business_list")))


def test_a_viewer_gets_neither_boxes_nor_bar(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.VIEWER, reseller=reseller)
    page = text(client.get(url(reseller, "business_list")))
    assert "bulk-selection" not in page and "Change all" not in page
    assert "Bulk changes" in page  # a viewer may follow them
    assert client.get(url(reseller, "bulk_change_new")).status_code == 403


def test_an_enterprise_page_offers_to_change_the_listings_under_it(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "business_detail", 500)))
    assert f'href="{url(reseller, "bulk_change_new")}?node=500">Change the listings under this' \
        in page


# -- the new page: which locations ----------------------------------------------------------------


def test_the_boxes_of_the_list_choose_locations(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    answer = client.get(url(reseller, "bulk_change_new") + "?numbers=503&numbers=501")
    assert answer.status_code == 200
    page = text(answer)
    assert "2 locations</strong>: Charlie, Alpha." in page
    assert '<input type="hidden" name="numbers" value="503,501">' in page


def test_the_filters_of_the_list_choose_locations(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "bulk_change_new"), {
        "filter": "all", "filter_city": "Austin", "filter_sort": "-name", "filter_page": "2"}))
    assert "3 locations</strong> (the locations matching the businesses list's filters: " \
           "city = Austin, sort = -name): Delta, Bravo, Alpha." in page
    assert '<input type="hidden" name="filter_city" value="Austin">' in page
    page = text(client.get(url(reseller, "bulk_change_new"), {"filter": "all"}))
    assert "4 locations</strong> (every location): Alpha, Bravo, Charlie, Delta." in page


def test_a_node_of_the_tree_chooses_the_locations_under_it(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "bulk_change_new"), {"node": "500"}))
    assert "3 locations</strong> under North brand (500): Alpha, Bravo, Charlie." in page


@pytest.mark.parametrize(("query", "message"), [
    ({"numbers": "501,abc"}, "Business numbers are whole numbers: abc are not."),
    ({"numbers": "501 999"}, "No business in your part of the account has these numbers: 999."),
    ({"numbers": "500"}, "500 (North brand) is not a location"),
    ({"node": "1" * 30}, "is not a business number."),
    ({"filter_colour": "red"}, "Not a filter of the businesses list."),
    ({"filter_city": "Paris"}, "No location in your part of the account matches these filters."),
])
def test_a_wrong_choice_of_locations_says_why(member_client, brand, query, message):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "bulk_change_new"), query))
    assert message in page
    # The numbers can be typed again.
    assert 'name="numbers" id="id_numbers"' in page


def test_without_a_choice_the_page_asks_for_numbers(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "bulk_change_new")))
    assert "Business numbers" in page
    answer = client.post(url(reseller, "bulk_change_new"), hours_form(numbers="601\n503"))
    assert answer.status_code == 302, text(answer)[:2000]
    with tenant_scope(reseller):
        change = BulkChange.objects.get()
    assert change.selection == {"numbers": [601, 503]}
    answer = client.post(url(reseller, "bulk_change_new"), hours_form())
    assert answer.status_code == 400
    assert "Choose the locations" in text(answer)


# -- the new page: what to set, with the editor's fields ------------------------------------------


def test_the_parts_ticked_show_the_editors_own_fields(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = text(client.get(url(reseller, "bulk_change_new"),
                           {"node": "500", "parts": [HOURS, DESCRIPTION]}))
    # The editor's hours widget (its day rows) and its description field, nothing else of it.
    assert 'name="hours0-start_0"' in page and 'aria-label="Monday opens 1"' in page
    assert 'name="businessinfo-mainBusinessDescription"' in page
    assert 'name="businessinfo-name"' not in page
    assert 'name="businessinfo-websiteUrl"' not in page
    assert f'value="{HOURS}" checked' in page
    # Every part of the editor can be chosen, grouped by its sections, but the address.
    for part in ("additionalInfo.specialHours", "additionalInfo.moreHours",
                 "businessInfo.websiteUrl", "profileListing.additionalCategories",
                 "profileListing.attributes", "mapsListing.mapsActionLinks",
                 "optOut.profileLogoOptOut", "socialProfileURLs.videoUrl"):
        assert f'value="{part}"' in page, part
    assert 'value="businessInfo.location"' not in page


def test_showing_other_parts_keeps_what_was_typed_and_checks_nothing(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    answer = client.post(url(reseller, "bulk_change_new"), hours_form(
        action="parts", node="500", parts=[HOURS, DESCRIPTION], **{
            "hours1-start_0": "25:99", "waves": "0"}))
    assert answer.status_code == 200
    page = text(answer)
    assert 'value="08:00"' in page and 'value="25:99"' in page and 'value="0"' in page
    assert 'name="businessinfo-mainBusinessDescription"' in page
    assert "field-error" not in page
    assert not BulkChange.unscoped.exists()


def test_bad_input_shows_errors_next_to_the_fields_and_keeps_it_all(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    answer = client.post(url(reseller, "bulk_change_new"), hours_form(
        node="500", parts=[HOURS, "businessInfo.websiteUrl"], waves="5, 0",
        action_required_threshold="-2", **{"hours1-start_0": "10:00",
                                           "businessinfo-websiteUrl": "not a site"}))
    assert answer.status_code == 400
    page = text(answer)
    assert "whole numbers of 1 or more" in page  # the waves
    assert "greater than or equal to 0" in page  # the threshold
    assert "Give both the opening and the closing time." in page  # Tuesday's range
    assert "Enter a full http:// or https:// address" in page
    for kept in ('value="5, 0"', 'value="-2"', 'value="not a site"', 'value="08:00"',
                 'value="10:00"', '<input type="hidden" name="node" value="500">'):
        assert kept in page, kept
    answer = client.post(url(reseller, "bulk_change_new"), hours_form(node="500", parts=[]))
    assert "Choose at least one part of the listing to set." in text(answer)
    assert not BulkChange.unscoped.exists()


# -- the dry run and its page ----------------------------------------------------------------


def test_the_dry_run_is_made_and_its_page_counts_what_it_would_do(member_client, brand):
    reseller, _ = brand
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    answer = client.post(url(reseller, "bulk_change_new"), hours_form(node="500"))
    assert answer.status_code == 302
    with tenant_scope(reseller):
        change = BulkChange.objects.get()
    assert answer["Location"] == url(reseller, "bulk_change_detail", change.pk)
    assert change.state == BulkChange.State.DRY_RUN_DONE
    assert change.set == {"additionalInfo": {"hoursOfOperations": week(8, 18)}}
    assert change.waves == [1, 2] and change.created_by == membership.user
    assert not OutboxEntry.unscoped.exists()

    page = text(client.get(answer["Location"]))
    assert "Dry run of bulk change" in page and "nothing was sent" in page
    counts = re.findall(r'<span class="figure">(\d+)</span> <span class="label">([^<]+)<', page)
    assert counts == [("2", "will change"), ("1", "unchanged"), ("0", "break a rule"),
                      ("3", "chosen")]
    assert "Sets</dt><dd>Opening hours" in page
    assert "Nothing has been sent yet." in page
    # Each location with the change it would make, as the listing review shows it.
    assert "<del>Monday: 09:00–17:00</del>" in page and "<ins>Monday: 08:00–18:00</ins>" in page
    assert page.count('<table class="diff">') == 2
    assert "Its listing already has these values." in page
    assert "Send to 2 locations in waves" in page


def test_a_rule_broken_is_shown_in_words_on_its_location(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    with tenant_scope(reseller):
        change = bulk_change_create(tenant=reseller, actor=None, businesses={"numbers": [501]},
                                    set={"additionalInfo": {"businessStatus": "Opening Soon"}})
    page = text(client.get(url(reseller, "bulk_change_detail", change.pk)))
    assert "break a rule" in page and '<span class="badge bad">Breaks a rule</span>' in page
    assert "Business status › Business status:</strong>" in page


def test_the_locations_are_filtered_by_state_and_paged(member_client, brand):
    reseller, rows = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    change = make_change(reseller)
    detail = url(reseller, "bulk_change_detail", change.pk)
    page = text(client.get(detail, {"state": "unchanged"}))
    assert 'id="item-502"' in page and 'id="item-501"' not in page
    page = text(client.get(detail, {"state": "nonsense", "page": "x"}))
    assert 'id="item-501"' in page and 'id="item-502"' in page
    assert f'href="{url(reseller, "listing_edit", 501)}">Alpha</a>' in page


def test_the_list_shows_the_changes_newest_first(member_client, brand):
    reseller, _ = brand
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    first = make_change(reseller, membership)
    second = make_change(reseller, membership, businesses={"numbers": [601]})
    page = text(client.get(url(reseller, "bulk_change_list")))
    assert page.index(f"Bulk change {second.pk}<") < page.index(f"Bulk change {first.pk}<")
    assert "Dry run done" in page and "Opening hours" in page
    assert membership.user.get_full_name() in page


# -- actions ------------------------------------------------------------------------------------


def test_actions_by_role(member_client, brand, client):
    reseller, _ = brand
    change = make_change(reseller)
    viewer = MembershipFactory(reseller=reseller, role=Role.VIEWER)
    client.force_login(viewer.user)
    detail = url(reseller, "bulk_change_detail", change.pk)
    page = text(client.get(detail))
    assert "Send to 2 locations" not in page and "needs the manager role" in page
    assert client.post(url(reseller, "bulk_change_apply", change.pk)).status_code == 403
    assert client.get(url(reseller, "bulk_change_cancel_confirm", change.pk)).status_code == 403

    client, _ = member_client(Role.MANAGER, reseller=reseller)
    assert client.get(url(reseller, "bulk_change_apply", change.pk)).status_code == 405
    answer = client.post(url(reseller, "bulk_change_apply", change.pk))
    assert answer.status_code == 302 and answer["Location"] == detail
    change.refresh_from_db()
    assert change.state == BulkChange.State.APPLYING and change.current_wave == 1
    with tenant_scope(reseller):
        queued = BulkChangeItem.objects.filter(change=change, state="queued")
        assert [item.business_number for item in queued] == [501]
    page = text(client.get(detail))
    assert "is being sent" in page
    assert 'data-moving="true"' in page
    assert "Wave <strong data-bulk-field=\"current_wave\">1</strong> of " \
           "<strong data-bulk-field=\"waves_total\">2</strong>" in page
    assert ">Pause</button>" in page and "Cancel the change…" in page

    client.post(url(reseller, "bulk_change_pause", change.pk))
    change.refresh_from_db()
    assert change.state == BulkChange.State.PAUSED
    page = text(client.get(detail))
    assert "Paused:</strong>" in page and ">Resume</button>" in page
    # Pausing twice is refused in words, nothing breaks.
    client.post(url(reseller, "bulk_change_pause", change.pk))
    assert "cannot be paused" in text(client.get(detail))

    client.post(url(reseller, "bulk_change_resume", change.pk))
    change.refresh_from_db()
    assert change.state == BulkChange.State.APPLYING


def test_cancel_and_rollback_ask_first(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    change = make_change(reseller)
    detail = url(reseller, "bulk_change_detail", change.pk)
    confirm = url(reseller, "bulk_change_cancel_confirm", change.pk)
    assert f'href="{confirm}"' in text(client.get(detail))
    page = text(client.get(confirm))
    assert f"Cancel bulk change {change.pk}?" in page
    assert f'action="{url(reseller, "bulk_change_cancel", change.pk)}"' in page
    assert client.post(confirm).status_code == 405
    change.refresh_from_db()
    assert change.state == BulkChange.State.DRY_RUN_DONE

    # Nothing was accepted: there is nothing to roll back, and the page says so.
    page = text(client.get(url(reseller, "bulk_change_rollback_confirm", change.pk)))
    assert "cannot be rolled back now" in page
    client.post(url(reseller, "bulk_change_cancel", change.pk))
    change.refresh_from_db()
    assert change.state == BulkChange.State.CANCELLED
    with tenant_scope(reseller):
        assert set(BulkChangeItem.objects.filter(change=change)
                   .values_list("state", flat=True)) == {"skipped", "unchanged"}


def test_the_rollback_page_names_what_goes_back(member_client, brand):
    reseller, rows = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    change = make_change(reseller)
    # As if the provider had accepted Alpha's change before the change was cancelled.
    with tenant_scope(reseller):
        BulkChangeItem.objects.filter(change=change, business_number=501).update(
            state="accepted", wave=1)
        BulkChange.objects.filter(pk=change.pk).update(state="cancelled", current_wave=1)
    page = text(client.get(url(reseller, "bulk_change_rollback_confirm", change.pk)))
    assert f"Roll back bulk change {change.pk}?" in page
    assert "Each of the 1 location it changed gets the parts it set (Opening hours)" in page
    assert ">Roll back 1 location</button>" in page


def test_the_progress_answers_json(member_client, brand):
    reseller, _ = brand
    client, _ = member_client(Role.VIEWER, reseller=reseller)
    change = make_change(reseller)
    body = client.get(url(reseller, "bulk_change_progress", change.pk)).json()
    assert body["state"] == "dry_run_done" and body["state_label"] == "Dry run done"
    assert body["moving"] is False
    assert (body["locations"], body["waves_total"], body["percent"]) == (2, 2, 0)


# -- who sees what ------------------------------------------------------------------------------


def test_a_limited_member_chooses_and_sees_within_their_subtree(member_client, brand):
    reseller, rows = brand
    client, membership = member_client(Role.MANAGER, reseller=reseller,
                                       limited_to=rows["north"])
    page = text(client.get(url(reseller, "bulk_change_new"), {"numbers": "501,601"}))
    assert "No business in your part of the account has these numbers: 601." in page
    page = text(client.get(url(reseller, "bulk_change_new"), {"filter_city": "Austin"}))
    assert "2 locations</strong>" in page and "Delta" not in page
    answer = client.post(url(reseller, "bulk_change_new"), hours_form(node="600"))
    assert answer.status_code == 400
    assert not BulkChange.unscoped.exists()

    everyone = make_change(reseller, businesses={"node": 600})
    own = make_change(reseller, membership)
    assert own.scope == rows["north"]
    listing = text(client.get(url(reseller, "bulk_change_list")))
    assert f"Bulk change {own.pk}<" in listing and f"Bulk change {everyone.pk}<" not in listing
    for name in ("bulk_change_detail", "bulk_change_progress", "bulk_change_cancel_confirm"):
        assert client.get(url(reseller, name, everyone.pk)).status_code == 404, name
    assert client.post(url(reseller, "bulk_change_apply", everyone.pk)).status_code == 404
    assert client.get(url(reseller, "bulk_change_detail", own.pk)).status_code == 200


def test_another_resellers_change_is_not_found(member_client, brand):
    reseller, _ = brand
    change = make_change(reseller)
    client, _ = member_client(Role.OWNER)
    other = MembershipFactory(role=Role.OWNER)
    client.force_login(other.user)
    for name in ("bulk_change_detail", "bulk_change_progress", "bulk_change_rollback_confirm"):
        assert client.get(url(reseller, name, change.pk)).status_code == 404
        assert client.get(reverse(name, args=[other.reseller.slug, change.pk])).status_code \
            == 404
    assert client.post(reverse("bulk_change_cancel", args=[other.reseller.slug, change.pk])
                       ).status_code == 404
    change.refresh_from_db()
    assert change.state == BulkChange.State.DRY_RUN_DONE


# -- the listing's history ----------------------------------------------------------------------


def test_a_version_sent_by_a_bulk_change_names_it_in_the_history(member_client, brand):
    reseller, rows = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    change = make_change(reseller)
    client.post(url(reseller, "bulk_change_apply", change.pk))
    page = text(client.get(url(reseller, "listing_edit", 501)))
    link = url(reseller, "bulk_change_detail", change.pk)
    assert f'<a href="{link}#item-501">From bulk change #{change.pk}</a>' in page
    assert "From bulk change" not in text(client.get(url(reseller, "listing_edit", 503)))


def test_the_history_reads_its_bulk_changes_in_fixed_queries(member_client, brand):
    reseller, rows = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    editor = url(reseller, "listing_edit", 501)

    def queries():
        client.get(editor)  # warm caches
        with CaptureQueriesContext(connection) as captured:
            assert client.get(editor).status_code == 200
        return len(captured)

    before = queries()
    location = rows[501]
    for number in range(2, 8):
        change = BulkChange.unscoped.create(reseller=reseller, state="done")
        version = accept(location, listing("Alpha", week(number, 17)), number=number)
        BulkChangeItem.unscoped.create(reseller=reseller, change=change, business=location,
                                       business_number=501, position=0, state="accepted",
                                       listing_version=version)
    # Seven versions from bulk changes read their links in the queries one version did.
    assert queries() == before


# -- query counts ---------------------------------------------------------------------------------


def pinned(client, address):
    client.get(address)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(address).status_code == 200
    return len(captured)


def test_the_list_and_the_detail_pin_their_queries(member_client, brand):
    reseller, rows = brand
    client, membership = member_client(Role.MANAGER, reseller=reseller)
    change = make_change(reseller, membership)
    listing_page = url(reseller, "bulk_change_list")
    detail = url(reseller, "bulk_change_detail", change.pk)
    few = (pinned(client, listing_page), pinned(client, detail))

    for index in range(12):
        make_change(reseller, membership)
        BusinessFactory(reseller=reseller, remote_id=510 + index, name=f"Extra {index}",
                        parent=rows["north"], depth=1, tree_path=f"/500/{510 + index}/")
    big = make_change(reseller, membership)
    assert BulkChangeItem.unscoped.filter(change=big).count() == 15
    many = (pinned(client, listing_page),
            pinned(client, url(reseller, "bulk_change_detail", big.pk)))
    assert few == many
    # The detail adds the change and its progress (one grouped query) to what the list reads; its
    # page of locations comes with their businesses and versions joined.
    assert many == (7, 9)  # with the bell's unread count

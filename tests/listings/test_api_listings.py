"""The listings API: tenancy, roles, lists, validation and idempotency (no provider calls)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Role
from listings.editor.services import listing_submit
from listings.models import (
    AiSearchConfiguration,
    Answer,
    Category,
    CustomField,
    ListingSite,
    ListingStatusReport,
    ListingVersion,
    Question,
    Subscription,
)
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

PAYLOAD = {"businessInfo": {"name": "Harbour Lights Cafe", "phone": "(206) 555-0142"}}


def api_url(name, reseller, *args):
    return reverse(name, args=[reseller.slug, *args])


def seed(reseller, business, rows=1):
    """Mirrored rows of every kind for `reseller` (`rows` of each list)."""
    with tenant_scope(reseller):
        ListingStatusReport.objects.get_or_create(
            reseller=reseller, business=business,
            defaults={"remote_id": business.remote_id, "business_name": business.name,
                      "location_status": "Synced", "total_sites": 1})
        AiSearchConfiguration.objects.get_or_create(
            reseller=reseller, remote_id=reseller.account_number,
            defaults={"frequency": "WEEKLY", "quota": 5, "themes": ["coffee"]})
        base = Question.objects.filter(reseller=reseller).count()
        for i in range(base, base + rows):
            ListingSite.objects.create(reseller=reseller, business=business, site_id=100 + i,
                                       site_name=f"Site {i}", status="Synced")
            Category.objects.create(reseller=reseller, source="PROFILE", country_code="US",
                                    remote_id=f"c{i}", name=f"Cafe {i}")
            Category.objects.create(reseller=reseller, source="MAPS", country_code="CA",
                                    remote_id=f"m.{i}", name=f"Bakery {i}")
            question = Question.objects.create(reseller=reseller, business=business,
                                               remote_id=business.remote_id * 100 + i,
                                               question=f"Open late {i}?")
            Answer.objects.create(reseller=reseller, question=question,
                                  remote_id=business.remote_id * 100 + i, answer="Yes")
            CustomField.objects.create(reseller=reseller, remote_id=business.remote_id + i,
                                       field_name=f"Field {i}", type="TEXT")
            Subscription.objects.create(reseller=reseller, remote_id=f"sub-{reseller.pk}-{i}",
                                        event_name="LISTING_UPDATED",
                                        webhook_url=f"https://hooks.example.com/{i}")
            listing_submit(tenant=reseller, actor=None, business=business,
                           payload={"businessInfo": {"name": f"Version {i}"}})
            ListingVersion.objects.filter(reseller=reseller).update(
                accepted_at="2026-01-01T00:00:00Z")


@pytest.fixture
def world(api_member):
    """A manager's client over a reseller with a location and one row of everything; and
    another reseller with the same."""
    client, membership = api_member(Role.MANAGER)
    reseller = membership.reseller
    business = BusinessFactory(reseller=reseller)
    seed(reseller, business)
    other = ResellerFactory()
    other_business = BusinessFactory(reseller=other)
    seed(other, other_business)
    return {"client": client, "membership": membership, "reseller": reseller,
            "business": business, "other": other, "other_business": other_business,
            "api_member": api_member}


def endpoints(w):
    """(method, url, body) of every endpoint, for the reseller of `w`."""
    r, b = w["reseller"], w["business"].remote_id
    sub = f"sub-{r.pk}-0"
    return [
        ("get", api_url("api_listing", r, b), None),
        ("get", api_url("api_listing_submission_list", r, b), None),
        ("post", api_url("api_listing_submission_list", r, b), PAYLOAD),
        ("get", api_url("api_listing_submission_detail", r, b, 1), None),
        ("get", api_url("api_listing_status", r, b), None),
        ("get", api_url("api_category_list", r), None),
        ("post", api_url("api_category_fetch", r, b), {"country": "US"}),
        ("get", api_url("api_question_list", r, b), None),
        ("delete", api_url("api_question_list", r, b), None),
        ("get", api_url("api_custom_field_list", r), None),
        ("post", api_url("api_custom_field_list", r), {"field_name": "New", "type": "TEXT"}),
        ("get", api_url("api_ai_search", r), None),
        ("post", api_url("api_ai_search_refresh", r), None),
        ("get", api_url("api_subscription_list", r), None),
        ("post", api_url("api_subscription_list", r),
         {"webhook_url": "https://hooks.example.com/x", "event_name": "LISTING_UPDATED"}),
        ("delete", api_url("api_subscription_detail", r, sub), None),
    ]


WRITES = {"post", "delete"}


def call(client, method, url, body):
    return getattr(client, method)(url, body, format="json") if body is not None else \
        getattr(client, method)(url)


def test_anonymous_gets_401_everywhere(world):
    for method, url, body in endpoints(world):
        response = call(APIClient(), method, url, body)
        assert response.status_code == 401, (method, url)
        assert response.json()["code"] == "not_authenticated"


def test_a_member_of_another_reseller_gets_404_everywhere(world):
    stranger, _ = world["api_member"](Role.OWNER, reseller=world["other"])
    for method, url, body in endpoints(world):
        response = call(stranger, method, url, body)
        assert response.status_code == 404, (method, url)
        assert response.json()["code"] == "not_found"


def test_another_resellers_objects_are_404(world):
    client, r = world["client"], world["reseller"]
    other_number = world["other_business"].remote_id
    for name in ("api_listing", "api_listing_submission_list", "api_listing_status",
                 "api_question_list"):
        assert client.get(api_url(name, r, other_number)).status_code == 404, name
    assert client.get(api_url("api_listing_submission_detail", r, other_number,
                              1)).status_code == 404
    assert client.post(api_url("api_listing_submission_list", r, other_number), PAYLOAD,
                       format="json").status_code == 404
    assert client.delete(api_url("api_question_list", r, other_number)).status_code == 404
    assert client.post(api_url("api_category_fetch", r, other_number),
                       {"country": "US"}, format="json").status_code == 404
    other_sub = f"sub-{world['other'].pk}-0"
    assert client.delete(api_url("api_subscription_detail", r, other_sub)).status_code == 404
    # The other reseller's mirrored rows never show in this one's lists.
    for name in ("api_category_list", "api_custom_field_list", "api_subscription_list"):
        assert client.get(api_url(name, r)).json()["count"] in (1, 2), name
    with tenant_scope(world["other"]):
        assert OutboxEntry.objects.filter(reseller=world["other"],
                                          kind=OutboxEntry.Kind.UNSUBSCRIBE).count() == 0


def test_an_unknown_submission_number_is_404(world):
    url = api_url("api_listing_submission_detail", world["reseller"],
                  world["business"].remote_id, 99)
    assert world["client"].get(url).status_code == 404


@pytest.mark.parametrize("role,token_role", [(Role.VIEWER, None), (Role.MANAGER, Role.VIEWER)])
def test_viewers_and_read_only_tokens_may_read_but_not_write(world, role, token_role):
    client, _ = world["api_member"](role, reseller=world["reseller"], token_role=token_role)
    for method, url, body in endpoints(world):
        response = call(client, method, url, body)
        if method in WRITES:
            assert response.status_code == 403, (method, url)
            assert response.json()["code"] == "permission_denied"
        else:
            assert response.status_code == 200, (method, url)
    with tenant_scope(world["reseller"]):
        assert not OutboxEntry.objects.filter(reseller=world["reseller"]).exclude(
            kind=OutboxEntry.Kind.LISTING_CREATE).exists()


def test_member_of_a_subtree_cannot_reach_a_business_outside_it(world):
    reseller = world["reseller"]
    root = BusinessFactory(reseller=reseller, type="Enterprise-Location")
    client, _ = world["api_member"](Role.MANAGER, reseller=reseller, limited_to=root)
    number = world["business"].remote_id
    assert client.get(api_url("api_listing", reseller, number)).status_code == 404
    assert client.delete(api_url("api_question_list", reseller, number)).status_code == 404


def test_manager_reads_everything(world):
    client, r, b = world["client"], world["reseller"], world["business"]
    listing = client.get(api_url("api_listing", r, b.remote_id)).json()
    assert listing["fixed"] is True and listing["draft"]["number"] == 1
    assert listing["accepted"]["document"]["businessInfo"]["name"] == "Version 0"
    assert listing["accepted"]["accepted_at"]
    status = client.get(api_url("api_listing_status", r, b.remote_id)).json()
    assert status["report"]["location_status"] == "Synced"
    assert [site["site_name"] for site in status["sites"]] == ["Site 0"]
    questions = client.get(api_url("api_question_list", r, b.remote_id)).json()
    assert questions["results"][0]["answers"][0]["answer"] == "Yes"
    assert client.get(api_url("api_ai_search", r)).json()["themes"] == ["coffee"]
    subscriptions = client.get(api_url("api_subscription_list", r)).json()["results"]
    assert subscriptions[0]["webhook_url"] == "https://hooks.example.com/0"
    assert "auth_password" not in subscriptions[0]


def test_a_listing_before_any_submission_shows_what_the_portal_knows(world):
    business = BusinessFactory(reseller=world["reseller"], phone="(512) 555-0100")
    listing = world["client"].get(api_url("api_listing", world["reseller"],
                                          business.remote_id)).json()
    assert listing["fixed"] is False and listing["accepted"] is None
    assert listing["draft"]["number"] is None
    assert listing["draft"]["document"]["businessInfo"]["phone"] == "(512) 555-0100"


def test_categories_are_filtered(world):
    client, r = world["client"], world["reseller"]
    rows = client.get(api_url("api_category_list", r), {"source": "MAPS",
                                                        "country": "ca"}).json()["results"]
    assert [(c["id"], c["source"]) for c in rows] == [("m.0", "MAPS")]
    assert client.get(api_url("api_category_list", r), {"q": "cafe"}).json()["count"] == 1
    bad = client.get(api_url("api_category_list", r), {"source": "NOPE"})
    assert bad.status_code == 400 and "source" in bad.json()["fields"]


def test_ai_search_is_404_until_fetched(api_member):
    client, membership = api_member(Role.VIEWER)
    response = client.get(api_url("api_ai_search", membership.reseller))
    assert response.status_code == 404


LISTS = [
    ("api_listing_submission_list", True),
    ("api_category_list", False),
    ("api_question_list", True),
    ("api_custom_field_list", False),
    ("api_subscription_list", False),
]


@pytest.mark.parametrize("name,per_business", LISTS)
def test_list_query_counts_do_not_grow_with_rows(world, name, per_business):
    client, r, b = world["client"], world["reseller"], world["business"]
    url = api_url(name, r, b.remote_id) if per_business else api_url(name, r)

    def count():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, {"limit": 500})
        assert response.status_code == 200
        return len(queries), response.json()["count"]

    count()  # the first request of a token also records when it was last used
    few, rows_before = count()
    seed(r, b, rows=6)
    many, rows_after = count()
    assert rows_after > rows_before
    assert many == few
    assert many <= 9


# -- writes ---------------------------------------------------------------------------------------

def test_a_submission_is_validated_with_the_editors_rules(world):
    client, r, b = world["client"], world["reseller"], world["business"]
    url = api_url("api_listing_submission_list", r, b.remote_id)
    response = client.post(url, {
        "businessInfo": {"name": "X", "phone": "not a phone"},
        "profileListing": {"primaryCategoryProfile": "Plumber",
                           "foodDelivery": "https://order.example.com",
                           "additionalCategories": ["Pipes", "Pipes"]},
    }, format="json")
    assert response.status_code == 400
    fields = response.json()["fields"]
    assert set(fields) == {"businessInfo.phone", "profileListing.foodDelivery",
                           "profileListing.additionalCategories"}
    assert response.json()["code"] == "invalid"
    # The listing is fixed (version 0 was accepted): its status cannot change.
    response = client.post(url, {"businessInfo": {"name": "X"},
                                 "additionalInfo": {"businessStatus": "Permanently Closed"}},
                           format="json")
    assert response.status_code == 400
    assert "additionalInfo.businessStatus" in response.json()["fields"]
    response = client.post(url, {"additionalInfo": {}, "bogus": {}}, format="json")
    assert response.status_code == 400
    assert {"bogus"} <= set(response.json()["fields"])
    response = client.post(url, {"businessInfo": {"phone": "(206) 555-0142"}}, format="json")
    assert "businessInfo.name" in response.json()["fields"]
    with tenant_scope(r):
        assert ListingVersion.objects.filter(business=b).count() == 1


def test_a_submission_is_queued_and_a_second_one_waits(world):
    client, r, b = world["client"], world["reseller"], world["business"]
    url = api_url("api_listing_submission_list", r, b.remote_id)
    response = client.post(url, PAYLOAD, format="json")
    assert response.status_code == 202
    body = response.json()
    assert (body["number"], body["state"]) == (2, "pending")
    with tenant_scope(r):
        entry = OutboxEntry.objects.get(pk=body["outbox_entry_id"])
    assert entry.kind == OutboxEntry.Kind.LISTING_CREATE and entry.payload == PAYLOAD
    poll = client.get(api_url("api_listing_submission_detail", r, b.remote_id, 2)).json()
    assert poll["state"] == "pending" and poll["provider_code"] is None
    again = client.post(url, {"businessInfo": {"name": "Other"}}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "busy"
    listed = client.get(url).json()
    assert [v["number"] for v in listed["results"]] == [2, 1]


def test_nothing_to_send_is_refused(world):
    client, r, b = world["client"], world["reseller"], world["business"]
    response = client.post(api_url("api_listing_submission_list", r, b.remote_id),
                           {"businessInfo": {"name": "Version 0"}}, format="json")
    assert response.status_code == 400
    assert "non_field_errors" in response.json()["fields"]


def test_questions_deletion_is_queued_once(world):
    client, r, b = world["client"], world["reseller"], world["business"]
    url = api_url("api_question_list", r, b.remote_id)
    first = client.delete(url)
    assert first.status_code == 202
    assert (first.json()["kind"], first.json()["state"]) == ("qna_delete_all", "pending")
    assert first.json()["business_number"] == b.remote_id
    assert client.delete(url).json()["id"] == first.json()["id"]


def test_custom_field_validation_names_the_field(world):
    client, url = world["client"], api_url("api_custom_field_list", world["reseller"])
    cases = [
        ({"field_name": "A", "type": "TEXT", "drop_down_options": ["x"]}, "drop_down_options"),
        ({"field_name": "A", "type": "DROPDOWN_SINGLE"}, "drop_down_options"),
        ({"field_name": "A", "type": "BOGUS"}, "type"),
        ({"field_name": "A", "type": "NUMBER", "default_value": "many"}, "default_value"),
        ({"field_name": "field 0", "type": "TEXT"}, "field_name"),  # taken, ignoring case
        ({"type": "TEXT"}, "field_name"),
    ]
    for body, field in cases:
        response = client.post(url, body, format="json")
        assert response.status_code == 400, body
        assert field in response.json()["fields"], (body, response.json())


def test_custom_field_create_is_idempotent(world):
    client, r = world["client"], world["reseller"]
    url = api_url("api_custom_field_list", r)
    body = {"field_name": "Parking", "type": "DROPDOWN_SINGLE",
            "drop_down_options": ["Street", "Garage"], "default_value": "Street"}
    first = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 202
    again = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 202 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    changed = client.post(url, {**body, "field_name": "Other"}, format="json",
                          HTTP_IDEMPOTENCY_KEY="k-1")
    assert changed.status_code == 400 and "Idempotency-Key" in changed.json()["fields"]
    with tenant_scope(r):
        entries = OutboxEntry.objects.filter(reseller=r, kind=OutboxEntry.Kind.CUSTOM_FIELD_CREATE)
        assert entries.count() == 1
        assert entries.get().payload["dropDownOptions"] == ["Street", "Garage"]


def test_subscription_validation_and_no_password_in_answers(world):
    client, r = world["client"], world["reseller"]
    url = api_url("api_subscription_list", r)
    cases = [
        ({"webhook_url": "http://hooks.example.com", "event_name": "LISTING_UPDATED"},
         "webhook_url"),
        ({"webhook_url": "https://hooks.example.com", "event_name": "NOPE"}, "event_name"),
        ({"webhook_url": "https://hooks.example.com", "event_name": "LISTING_UPDATED",
          "emails": ["not-an-email"]}, "emails"),
        ({"webhook_url": "https://hooks.example.com", "event_name": "LISTING_UPDATED",
          "auth_username": "bob"}, "auth_password"),
    ]
    for body, field in cases:
        response = client.post(url, body, format="json")
        assert response.status_code == 400, body
        assert field in response.json()["fields"], (body, response.json())
    response = client.post(url, {"webhook_url": "https://hooks.example.com/new",
                                 "event_name": "LISTING_UPDATED", "emails": ["a@example.com"],
                                 "auth_username": "bob", "auth_password": "s3cret-pw"},
                           format="json")
    assert response.status_code == 202
    assert "s3cret-pw" not in response.content.decode()
    with tenant_scope(r):
        entry = OutboxEntry.objects.get(pk=response.json()["id"])
    assert entry.kind == OutboxEntry.Kind.SUBSCRIBE
    assert "s3cret-pw" not in str(entry.payload)
    assert entry.payload["emails"] == ["a@example.com"]
    assert "s3cret-pw" not in client.get(url).content.decode()


def test_unsubscribe_is_queued_once(world):
    client, r = world["client"], world["reseller"]
    url = api_url("api_subscription_detail", r, f"sub-{r.pk}-0")
    first = client.delete(url)
    assert first.status_code == 202 and first.json()["kind"] == "unsubscribe"
    assert client.delete(url).json()["id"] == first.json()["id"]
    assert client.delete(api_url("api_subscription_detail", r, "missing")).status_code == 404


def test_category_fetch_needs_a_known_country(world):
    response = world["client"].post(api_url("api_category_fetch", world["reseller"],
                                            world["business"].remote_id),
                                    {"country": "ZZ"}, format="json")
    assert response.status_code == 400 and "country" in response.json()["fields"]


def test_a_manager_queues_a_listing_status_refresh(api_member, monkeypatch,
                                                   django_capture_on_commit_callbacks):
    from django.urls import reverse

    from accounts.models import Role
    from listings import tasks as tasks_ui
    from tests.factories import BusinessFactory

    queued = []
    monkeypatch.setattr(tasks_ui.listing_status_refresh_task, "delay",
                        lambda **kwargs: queued.append(kwargs))
    client, membership = api_member(Role.MANAGER)
    location = BusinessFactory(reseller=membership.reseller)
    url = reverse("api_listing_status_refresh", args=[membership.reseller.slug,
                                                      location.remote_id])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url)
    assert response.status_code == 202
    assert response.json() == {"business_number": location.remote_id, "queued": True}
    assert queued and queued[0]["business_id"] == location.pk

    viewer, _ = api_member(Role.VIEWER, reseller=membership.reseller)
    assert viewer.post(url).status_code == 403
    outsider, _ = api_member(Role.MANAGER)
    assert outsider.post(reverse("api_listing_status_refresh", args=[
        membership.reseller.slug, location.remote_id])).status_code == 404


def test_deleting_the_qna_of_a_business_without_questions_is_refused(world):
    client, r = world["client"], world["reseller"]
    empty = BusinessFactory(reseller=r)
    response = client.delete(api_url("api_question_list", r, empty.remote_id))
    assert response.status_code == 400
    assert "has no questions or answers to delete" in \
        response.json()["fields"]["business_number"][0]
    with tenant_scope(r):
        assert not OutboxEntry.objects.filter(kind=OutboxEntry.Kind.QNA_DELETE_ALL).exists()


def test_questions_come_newest_first(world):
    client, r, b = world["client"], world["reseller"], world["business"]
    with tenant_scope(r):
        for remote_id, day in ((11, "2026-03-01"), (12, "2025-01-01"), (10, "2026-05-01")):
            Question.objects.create(reseller=r, business=b, remote_id=remote_id,
                                    question=f"Q {day}", asked_at=f"{day}T10:00:00Z")
    results = client.get(api_url("api_question_list", r, b.remote_id)).json()["results"]
    assert [q["question"] for q in results][:3] == ["Q 2026-05-01", "Q 2026-03-01",
                                                    "Q 2025-01-01"]


def test_a_date_field_takes_and_gives_its_default_as_an_iso_day(world):
    client, r = world["client"], world["reseller"]
    url = api_url("api_custom_field_list", r)
    response = client.post(url, {"field_name": "Renewal", "type": "DATE",
                                 "default_value": "2026-12-31"}, format="json")
    assert response.status_code == 202, response.json()
    with tenant_scope(r):
        entry = OutboxEntry.objects.get(pk=response.json()["id"])
        assert entry.payload["defaultValue"] == "12/31/2026"  # the provider's format
        CustomField.objects.create(reseller=r, remote_id=991, field_name="Renewal",
                                   type="DATE", default_value="12/31/2026")
    fields = {f["field_name"]: f for f in client.get(url).json()["results"]}
    assert fields["Renewal"]["default_value"] == "2026-12-31"
    bad = client.post(url, {"field_name": "Other", "type": "DATE",
                            "default_value": "2026-02-30"}, format="json")
    assert bad.status_code == 400 and "default_value" in bad.json()["fields"]


def test_several_events_are_subscribed_in_one_request(world):
    client, r = world["client"], world["reseller"]
    url = api_url("api_subscription_list", r)
    response = client.post(url, {"webhook_url": "https://hooks.example.com/many",
                                 "event_names": ["LISTING_UPDATED", "SURVEY_COMPLETED"]},
                           format="json")
    assert response.status_code == 202, response.json()
    changes = response.json()["changes"]
    assert [change["kind"] for change in changes] == ["subscribe", "subscribe"]
    with tenant_scope(r):
        assert [OutboxEntry.objects.get(pk=change["id"]).payload["eventName"]
                for change in changes] == ["LISTING_UPDATED", "SURVEY_COMPLETED"]


@pytest.mark.parametrize("body,field", [
    ({"event_names": ["LISTING_UPDATED"]}, "event_names"),
    ({"event_name": "LISTING_UPDATED"}, "event_name"),
])
def test_an_event_the_url_already_receives_is_refused(world, body, field):
    client, r = world["client"], world["reseller"]
    # The seed subscribed https://hooks.example.com/0 to LISTING_UPDATED.
    response = client.post(api_url("api_subscription_list", r),
                           {"webhook_url": "https://hooks.example.com/0", **body},
                           format="json")
    assert response.status_code == 400
    assert "Already delivered to this URL" in response.json()["fields"][field][0]
    with tenant_scope(r):
        assert not OutboxEntry.objects.filter(kind=OutboxEntry.Kind.SUBSCRIBE).exists()


def test_events_are_given_one_way_only(world):
    client, r = world["client"], world["reseller"]
    url = api_url("api_subscription_list", r)
    both = client.post(url, {"webhook_url": "https://hooks.example.com/n",
                             "event_name": "LISTING_UPDATED",
                             "event_names": ["SURVEY_COMPLETED"]}, format="json")
    assert both.status_code == 400 and "event_name" in both.json()["fields"]
    neither = client.post(url, {"webhook_url": "https://hooks.example.com/n"}, format="json")
    assert neither.status_code == 400 and "event_names" in neither.json()["fields"]

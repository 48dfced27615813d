"""The listings pages and their outbox handlers against the embedded sandbox over real HTTP:
custom fields, Q&A deletion, webhook subscribe and unsubscribe, AI-search refresh."""

import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent, Business, Reseller, Role
from listings.models import AiSearchConfiguration, Answer, CustomField, Question, Subscription
from listings.outbox_handlers import CustomFieldCreate, Unsubscribe
from listings.services import (
    custom_field_create,
    qna_delete_all,
    subscription_create,
    subscription_delete,
)
from outbox import services as outbox
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from provider import Transient
from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "listings-pages-partner-key"
Kind, State = OutboxEntry.Kind, OutboxEntry.State



@pytest.fixture(autouse=True)
def _fast(fast_provider):
    pass


@pytest.fixture
def seeded(live_server):
    return seed_partner(api_key=KEY, locations=3, seed=1, rate_limit=(1000, 1))


@pytest.fixture
def reseller(seeded, live_server):
    return ResellerFactory(api_key=KEY, account_number=seeded["account_number"],
                           provider_base_url=f"{live_server.url}/sandbox")


@pytest.fixture
def manager(reseller, client):
    membership = MembershipFactory(reseller=reseller, role=Role.MANAGER)
    client.force_login(membership.user)
    return client


def send(reseller, entry):
    with tenant_scope(reseller):
        outbox.outbox_send(tenant=reseller, entry_id=entry.pk)
    return OutboxEntry.unscoped.get(pk=entry.pk)


def queue(reseller, service, **kwargs):
    with tenant_scope(reseller):
        return service(tenant=reseller, actor=None, **kwargs)


# -- custom fields ------------------------------------------------------------------------------

def test_a_custom_field_is_accepted_then_a_duplicate_is_rejected_with_5022(reseller, manager):
    url = reverse("custom_field_list", args=[reseller.slug])
    response = manager.post(url, {"field_name": "Store perks", "type": "DROPDOWN_MULTI",
                                  "drop_down_options": "Gold\nSilver", "default_value": "Gold",
                                  "field_description": "Tier", "filterable": "on"})
    assert response.status_code == 302
    entry = send(reseller, OutboxEntry.unscoped.get(kind=Kind.CUSTOM_FIELD_CREATE))
    assert entry.state == State.ACCEPTED, (entry.provider_code, entry.provider_message)

    remote = sandbox.CustomField.objects.get(field_name="Store perks")
    assert (remote.type, remote.dropdown_options, remote.filterable) == (
        "DROPDOWN_MULTI", ["Gold", "Silver"], True)
    mirrored = CustomField.unscoped.get(reseller=reseller)
    assert (mirrored.remote_id, mirrored.field_name, mirrored.type) == (
        remote.pk, "Store perks", "DROPDOWN_MULTI")
    assert mirrored.created_ms and mirrored.drop_down_options == ["Gold", "Silver"]
    page = manager.get(url).content.decode()
    assert "Store perks" in page and "Gold, Silver" in page

    # The same name again: the provider refuses it with 5022.
    duplicate = send(reseller, queue(reseller, custom_field_create, field_name="STORE PERKS",
                                     type="TEXT"))
    assert (duplicate.state, duplicate.provider_code) == (State.REJECTED, 5022)
    assert sandbox.CustomField.objects.filter(name_key="store perks").count() == 1

    # A name made on the provider's side, which the portal cannot know: the form lets it pass,
    # the provider refuses it, and its message lands on the name when the user fixes it.
    manager.post(url, {"field_name": "Loyalty Tier", "type": "TEXT"})
    refused = send(reseller, OutboxEntry.unscoped.filter(kind=Kind.CUSTOM_FIELD_CREATE)
                   .latest("created_at"))
    assert (refused.state, refused.provider_code) == (State.REJECTED, 5022)
    assert "same name already present" in manager.get(url).content.decode()
    form = manager.get(f"{url}?fix={refused.pk}").context["form"]
    assert "same name" in " ".join(form.errors["field_name"])
    assert form["field_name"].value() == "Loyalty Tier"


def test_an_unknown_outcome_is_reconciled_by_the_duplicate_name(reseller, monkeypatch):
    real_send = CustomFieldCreate.send

    def send_then_lose_reply(self, client, entry):
        real_send(self, client, entry)
        raise Transient(None, "read timed out", None, operation="create_custom_field",
                        outcome_unknown=True)

    monkeypatch.setattr(CustomFieldCreate, "send", send_then_lose_reply)
    entry = send(reseller, queue(reseller, custom_field_create, field_name="Region",
                                 type="TEXT"))
    assert entry.state == State.ACCEPTED
    assert entry.provider_reply["reconciled"] is True
    assert sandbox.CustomField.objects.filter(field_name="Region").count() == 1


# -- Q&A ----------------------------------------------------------------------------------------

def test_deleting_all_qna_is_accepted_and_the_rows_are_removed(reseller, manager, seeded):
    call_command("sync", reseller.slug, "--only", "businesses", "qna", stdout=io.StringIO(),
                 stderr=io.StringIO())
    number = next(n for n in seeded["location_numbers"]
                  if sandbox.Question.objects.filter(location__number=n).exists())
    business = Business.unscoped.get(reseller=reseller, remote_id=number)
    live = Question.unscoped.filter(reseller=reseller, removed_at__isnull=True)
    assert live.filter(business=business).exists()
    others_before = live.exclude(business=business).count()

    url = reverse("qna_delete_confirm", args=[reseller.slug, number])
    assert business.name in manager.get(url).content.decode()
    manager.post(url)
    entry = send(reseller, OutboxEntry.unscoped.get(kind=Kind.QNA_DELETE_ALL))
    assert entry.state == State.ACCEPTED
    assert not sandbox.Question.objects.filter(location__number=number).exists()
    assert not live.filter(business=business).exists()
    assert not Answer.unscoped.filter(question__business=business,
                                      removed_at__isnull=True).exists()
    assert live.exclude(business=business).count() == others_before  # only this business

    page = manager.get(reverse("business_qna", args=[reseller.slug, number])).content.decode()
    assert "Accepted" in page and "all were deleted" in page


def test_questions_synced_from_the_provider_show_in_date_order(reseller, manager, seeded):
    """Question ids at the provider say nothing of when they were asked: ids chosen against
    the dates, synced and shown newest first with their answers in order."""
    number = seeded["location_numbers"][0]
    location = sandbox.Business.objects.get(number=number)
    sandbox.Question.objects.filter(location=location).delete()
    base = timezone.now().replace(microsecond=0) - dt.timedelta(days=30)
    asked = {}
    for question_id, days, text in ((5_000_000_001, 20, "Newest question"),
                                     (5_000_000_003, 2, "Oldest question"),
                                     (5_000_000_002, 10, "Middle question")):
        asked[text] = sandbox.Question.objects.create(
            partner=location.partner, location=location, question_id=question_id, text=text,
            updated_by="Sam", updated_at=base + dt.timedelta(days=days), user_category="CUSTOMER")
    for answer_id, hours, text in ((6_000_000_009, 1, "First answer"),
                                   (6_000_000_001, 5, "Second answer")):
        sandbox.Answer.objects.create(
            partner=location.partner, question=asked["Newest question"], answer_id=answer_id,
            text=text, updated_by="Owner", user_category="MERCHANT",
            updated_at=asked["Newest question"].updated_at + dt.timedelta(hours=hours))
    call_command("sync", reseller.slug, "--only", "businesses", "qna", stdout=io.StringIO(),
                 stderr=io.StringIO())
    page = manager.get(reverse("business_qna", args=[reseller.slug, number])).content.decode()
    order = [page.index(text) for text in ("Newest question", "Middle question",
                                           "Oldest question")]
    assert order == sorted(order)
    answers = [page.index(text) for text in ("First answer", "Second answer")]
    assert answers == sorted(answers)


def test_deleting_the_qna_of_an_unknown_business_is_rejected(reseller):
    business = Business.unscoped.create(reseller=reseller, remote_id=999_999_999_999,
                                        name="Gone", tree_path="/999999999999/")
    # Mirrored before the provider lost it: the portal has something to delete.
    Question.unscoped.create(reseller=reseller, business=business, remote_id=42,
                             question="Still open?")
    entry = send(reseller, queue(reseller, qna_delete_all, business=business))
    assert (entry.state, entry.provider_code) == (State.REJECTED, 1011)


# -- webhooks -----------------------------------------------------------------------------------

def test_subscribe_then_unsubscribe_through_the_pages(reseller, manager, seeded):
    url = reverse("subscription_list", args=[reseller.slug])
    response = manager.post(url, {"webhook_url": "https://hooks.example.com/portal",
                                  "event_names": ["LISTING_UPDATED"],
                                  "emails": "ops@example.com, team@example.com",
                                  "auth_username": "portal", "auth_password": "s3cret-pass"})
    assert response.status_code == 302
    entry = OutboxEntry.unscoped.get(kind=Kind.SUBSCRIBE)
    assert "s3cret-pass" not in str(entry.payload)  # encrypted while it waits
    entry = send(reseller, entry)
    assert entry.state == State.ACCEPTED

    remote = sandbox.Subscription.objects.exclude(
        subscription_id__in=seeded["subscription_ids"]).get()
    assert remote.auth == {"username": "portal", "password": "s3cret-pass"}
    assert remote.emails == ["ops@example.com", "team@example.com"]
    subscription = Subscription.unscoped.get(reseller=reseller)
    assert (subscription.remote_id, subscription.event_name) == (remote.subscription_id,
                                                                 "LISTING_UPDATED")
    # Once the provider has it, the portal keeps no copy of the password, not even encrypted.
    assert entry.payload["auth"] == {"username": "portal", "password_encrypted": ""}
    assert "s3cret-pass" not in str(entry.provider_reply)
    assert not AuditEvent.unscoped.filter(summary__icontains="s3cret").exists()
    assert "hooks.example.com/portal" in manager.get(url).content.decode()

    confirm = reverse("subscription_delete_confirm", args=[reseller.slug, remote.subscription_id])
    assert "Listing updated" in manager.get(confirm).content.decode()
    manager.post(confirm)
    removal = send(reseller, OutboxEntry.unscoped.get(kind=Kind.UNSUBSCRIBE))
    assert removal.state == State.ACCEPTED
    assert not sandbox.Subscription.objects.filter(
        subscription_id=remote.subscription_id).exists()
    assert Subscription.unscoped.get(pk=subscription.pk).removed_at is not None
    assert list(manager.get(url).context["subscriptions"]) == []


def test_unsubscribing_an_unknown_id_is_rejected_but_after_an_earlier_attempt_it_is_gone(
        reseller):
    with tenant_scope(reseller):
        gone = Subscription.objects.create(reseller=reseller, remote_id="no-such-id",
                                           event_name="SURVEY_COMPLETED",
                                           webhook_url="https://hooks.example.com/a")
    first = send(reseller, queue(reseller, subscription_delete, subscription=gone))
    assert (first.state, first.provider_code) == (State.REJECTED, 1005)
    assert Subscription.unscoped.get(pk=gone.pk).removed_at is None

    # A second attempt of a row whose first attempt may have removed it: already gone.
    with tenant_scope(reseller):
        outbox.outbox_retry(tenant=reseller, actor=None, entry=first)
    OutboxEntry.unscoped.filter(pk=first.pk).update(attempts=1)
    again = send(reseller, first)
    assert again.state == State.ACCEPTED
    assert Subscription.unscoped.get(pk=gone.pk).removed_at is not None


def test_an_unsubscribe_whose_reply_was_lost_is_reconciled(reseller, seeded, monkeypatch):
    remote_id = seeded["subscription_ids"][0]
    with tenant_scope(reseller):
        row = Subscription.objects.create(reseller=reseller, remote_id=remote_id,
                                          event_name="LISTING_UPDATED",
                                          webhook_url="https://hooks.example.com/b")
    real_send = Unsubscribe.send

    def send_then_lose_reply(self, client, entry):
        real_send(self, client, entry)
        raise Transient(None, "read timed out", None, operation="unsubscribe",
                        outcome_unknown=True)

    monkeypatch.setattr(Unsubscribe, "send", send_then_lose_reply)
    entry = send(reseller, queue(reseller, subscription_delete, subscription=row))
    # Removing twice removes once: it is simply tried again, and the provider's "not found"
    # then says the first attempt removed it.
    assert entry.state == State.PENDING and not entry.in_doubt
    monkeypatch.setattr(Unsubscribe, "send", real_send)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(next_attempt_at=timezone.now())
    entry = send(reseller, entry)
    assert entry.state == State.ACCEPTED and entry.provider_reply["alreadyRemoved"]
    assert Subscription.unscoped.get(pk=row.pk).removed_at is not None
    assert not sandbox.Subscription.objects.filter(subscription_id=remote_id).exists()


def test_a_subscription_without_auth_is_sent_with_none(reseller):
    entry = send(reseller, queue(reseller, subscription_create,
                                 webhook_url="https://hooks.example.com/c",
                                 event_name="CONTACT_CREATED"))
    assert entry.state == State.ACCEPTED
    assert sandbox.Subscription.objects.get(webhook_url="https://hooks.example.com/c").auth is None


# -- AI search ----------------------------------------------------------------------------------

def test_refresh_fetches_and_mirrors_the_ai_search_configuration(reseller, manager, seeded):
    url = reverse("ai_search", args=[reseller.slug])
    expected = sandbox.AiSearchConfig.objects.get(business__number=seeded["account_number"])

    real_hash = sandbox.PartnerAccount.objects.get().key_hash
    sandbox.PartnerAccount.objects.update(key_hash="0" * 64)  # the key is revoked
    page = manager.post(url, follow=True).content.decode()
    assert "rejected this reseller&#x27;s API key" in page
    assert Reseller.objects.get(pk=reseller.pk).status == Reseller.Status.KEY_REJECTED
    assert not AiSearchConfiguration.unscoped.exists()

    sandbox.PartnerAccount.objects.update(key_hash=real_hash)
    page = manager.post(url, follow=True).content.decode()
    assert "refreshed from the provider" in page
    mirrored = AiSearchConfiguration.unscoped.get(reseller=reseller)
    assert (mirrored.frequency, mirrored.quota) == (expected.frequency, expected.quota)
    assert mirrored.themes == expected.themes
    assert mirrored.themes[0]["theme"] in page
    assert AuditEvent.unscoped.filter(reseller=reseller, action="ai_search.refreshed").exists()

"""The Q&A tab of a business: questions with answers, paginated; delete all with confirmation."""

import datetime as dt
import itertools

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Business, Role
from listings.mirroring import qna_moment, questions_mirror
from listings.models import Answer, Question
from listings.services import qna_delete_all
from outbox.models import OutboxEntry
from provider.types import QnaQuestion
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(1_000_000)



def add_question(business, text="Do you have parking?", answers=1, removed=False):
    question = Question.unscoped.create(
        reseller=business.reseller, business=business, remote_id=next(_ids), question=text,
        updated_by="Sam", updated_on="Jan 02, 2026", time="10:00 AM", answer_count=answers,
        removed_at=timezone.now() if removed else None)
    for index in range(answers):
        Answer.unscoped.create(reseller=business.reseller, question=question,
                               remote_id=next(_ids), answer=f"Answer {index} to {text}",
                               updated_by="Owner", answered_by_owner=True)
    return question


def qna_url(business, slug=None):
    return reverse("business_qna", args=[slug or business.reseller.slug, business.remote_id])


def confirm_url(business, slug=None):
    return reverse("qna_delete_confirm", args=[slug or business.reseller.slug,
                                               business.remote_id])


@pytest.fixture
def manager(member_client):
    client, membership = member_client(Role.MANAGER)
    business = BusinessFactory(reseller=membership.reseller, name="Harbor Cafe")
    return client, business


def test_a_member_sees_questions_with_their_answers(manager):
    client, business = manager
    add_question(business, "Do you have parking?", answers=2)
    add_question(business, "A question that was deleted", removed=True)
    page = client.get(qna_url(business)).content.decode()
    assert "Do you have parking?" in page
    assert "Answer 0 to Do you have parking?" in page and "Answer 1 to" in page
    assert "A question that was deleted" not in page
    assert "Delete all Q&amp;A" in page


def test_questions_are_paginated_twenty_a_page(manager):
    client, business = manager
    for index in range(23):
        add_question(business, f"Question number {index:02d}", answers=0)
    first = client.get(qna_url(business)).content.decode()
    second = client.get(qna_url(business) + "?page=2").content.decode()
    assert first.count('class="qna"') == 20 and second.count('class="qna"') == 3
    assert "Page 1 of 2" in first
    # Newest (highest remote id) first: the first three asked are on page 2.
    assert "Question number 00" in second and "Question number 00" not in first


def test_another_tenants_member_gets_404(member_client):
    business = BusinessFactory()
    client, _ = member_client(Role.OWNER)
    assert client.get(qna_url(business)).status_code == 404
    assert client.get(confirm_url(business)).status_code == 404


def test_another_tenants_business_id_gets_404(manager):
    client, business = manager
    foreign = BusinessFactory(reseller=ResellerFactory())
    add_question(foreign, "Foreign question")
    assert client.get(qna_url(foreign, slug=business.reseller.slug)).status_code == 404
    assert client.get(confirm_url(foreign, slug=business.reseller.slug)).status_code == 404
    assert client.post(confirm_url(foreign, slug=business.reseller.slug)).status_code == 404
    assert not OutboxEntry.unscoped.exists()


def test_a_subtree_member_sees_only_their_businesses(member_client):
    reseller = ResellerFactory()
    root = BusinessFactory(reseller=reseller, type=Business.Type.ENTERPRISE_LOCATION,
                           tree_path="/1/")
    mine = BusinessFactory(reseller=reseller, tree_path=f"/1/{next(_ids)}/")
    elsewhere = BusinessFactory(reseller=reseller, tree_path=f"/2/{next(_ids)}/")
    client, _ = member_client(Role.VIEWER, reseller=reseller, limited_to=root)
    assert client.get(qna_url(mine)).status_code == 200
    assert client.get(qna_url(elsewhere)).status_code == 404


def test_a_viewer_has_no_delete_control_and_cannot_post(member_client):
    client, membership = member_client(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    add_question(business)
    page = client.get(qna_url(business)).content.decode()
    assert "Delete all" not in page and confirm_url(business) not in page
    assert client.get(confirm_url(business)).status_code == 403
    assert client.post(confirm_url(business)).status_code == 403
    assert client.post(qna_url(business)).status_code == 403
    assert not OutboxEntry.unscoped.exists()


def test_the_confirmation_names_the_business_and_queues_the_deletion(manager):
    client, business = manager
    add_question(business)
    page = client.get(confirm_url(business)).content.decode()
    assert "Delete all questions and answers of Harbor Cafe?" in page
    assert "Delete all Q&amp;A of Harbor Cafe" in page

    response = client.post(confirm_url(business))
    assert response.status_code == 302 and response.url == qna_url(business)
    entry = OutboxEntry.unscoped.get()
    assert (entry.kind, entry.business, entry.state) == (
        OutboxEntry.Kind.QNA_DELETE_ALL, business, OutboxEntry.State.PENDING)
    assert entry.payload == {"businessId": business.remote_id}
    # Nothing is removed until the provider accepts it.
    assert Question.unscoped.filter(removed_at__isnull=True).count() == 1

    page = client.get(qna_url(business)).content.decode()
    assert "Deletion pending" in page and 'id="qna-deletion"' in page


def test_confirming_twice_queues_one_deletion(manager, scope):
    client, business = manager
    add_question(business)
    client.post(confirm_url(business))
    client.post(confirm_url(business))
    assert OutboxEntry.unscoped.count() == 1


@pytest.mark.parametrize("state,code,message,shown", [
    (OutboxEntry.State.ACCEPTED, None, "", "Accepted"),
    (OutboxEntry.State.REJECTED, 1011, "business id is invalid", "business id is invalid"),
])
def test_the_latest_deletions_outcome_is_shown(manager, scope, state, code, message, shown):
    client, business = manager
    add_question(business)
    scope(business.reseller)
    entry = qna_delete_all(tenant=business.reseller, actor=None, business=business)
    OutboxEntry.unscoped.filter(pk=entry.pk).update(state=state, provider_code=code,
                                                    provider_message=message)
    page = client.get(qna_url(business)).content.decode()
    assert shown in page
    if code:
        assert f"code {code}" in page


def test_the_query_count_does_not_grow_with_questions(manager):
    client, business = manager
    add_question(business, answers=1)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(qna_url(business)).status_code == 200
        return len(queries)

    few = count()
    for index in range(30):
        add_question(business, f"More {index}", answers=3)
    assert count() == few == 11  # with the bell's unread count


# -- date order ----------------------------------------------------------------------------------

def provider_question(question_id, text, day, clock, answers=()):
    return QnaQuestion.from_json({
        "questionId": question_id, "question": text, "updatedBy": "Sam", "updatedOn": day,
        "time": clock, "noOfAnswers": len(answers),
        "answers": [{"answerId": answer_id, "answer": words, "updatedBy": "Owner",
                     "updatedOn": answer_day, "time": answer_clock}
                    for answer_id, words, answer_day, answer_clock in answers]})


def test_questions_show_newest_first_and_answers_in_order_whatever_their_ids(manager, scope):
    """The provider's ids are not in date order: the mirror reads the dates it writes as text
    and the page sorts on them, questions newest first, answers oldest first under each."""
    client, business = manager
    scope(business.reseller)
    questions_mirror(tenant=business.reseller, seen_at=timezone.now(), pages=[(business, [
        provider_question(9, "Asked in March?", "Mar 05, 2026", "09:00 AM", answers=[
            (30, "Latest answer", "Mar 07, 2026", "01:15 PM"),
            (40, "First answer", "Mar 05, 2026", "11:30 AM"),
            (20, "Middle answer", "Mar 06, 2026", "08:00 AM")]),
        provider_question(1, "Asked in the evening of Jan 10?", "Jan 10, 2026", "08:45 PM"),
        provider_question(5, "Asked in the morning of Jan 10?", "Jan 10, 2026", "07:05 AM"),
        provider_question(7, "Asked last year?", "Dec 31, 2025", "11:59 PM"),
    ])])
    page = client.get(qna_url(business)).content.decode()
    order = ["Asked in March?", "Asked in the evening of Jan 10?",
             "Asked in the morning of Jan 10?", "Asked last year?"]
    positions = [page.index(text) for text in order]
    assert positions == sorted(positions), "newest question first"
    answers = [page.index(text) for text in ("First answer", "Middle answer", "Latest answer")]
    assert answers == sorted(answers), "answers in the order given"
    api = client.get(reverse("api_question_list", args=[business.reseller.slug,
                                                        business.remote_id]))
    assert [q["question"] for q in api.json()["results"]] == order


def test_the_moment_is_read_from_the_providers_text():
    moment = qna_moment("Jan 02, 2026", "10:05 PM")
    assert timezone.localtime(moment, timezone.get_default_timezone()).replace(
        tzinfo=None) == dt.datetime(2026, 1, 2, 22, 5)
    assert qna_moment("Jan 02, 2026", "").date() == dt.date(2026, 1, 2)
    assert qna_moment("yesterday", "10:05 PM") is None and qna_moment(None, None) is None


# -- nothing to delete ---------------------------------------------------------------------------

def test_a_business_without_questions_offers_no_deletion_and_refuses_one(manager, scope):
    client, business = manager
    add_question(business, "Deleted long ago", removed=True)
    page = client.get(qna_url(business)).content.decode()
    assert "Delete all Q&amp;A" not in page and confirm_url(business) not in page

    confirm = client.get(confirm_url(business)).content.decode()
    assert "there is nothing to delete" in confirm
    assert '<button type="submit" class="danger">' not in confirm

    response = client.post(confirm_url(business), follow=True)
    assert not OutboxEntry.unscoped.exists()
    assert "has no questions or answers to delete" in response.content.decode()

    scope(business.reseller)
    with pytest.raises(ValidationError) as refused:
        qna_delete_all(tenant=business.reseller, actor=None, business=business)
    assert "business_number" in refused.value.message_dict
    assert not OutboxEntry.unscoped.exists()


def test_an_enterprise_counts_the_questions_of_its_locations(member_client):
    client, membership = member_client(Role.MANAGER)
    reseller = membership.reseller
    root = BusinessFactory(reseller=reseller, type=Business.Type.ENTERPRISE_LOCATION,
                           tree_path="/1/", remote_id=1)
    location = BusinessFactory(reseller=reseller, tree_path="/1/77/", remote_id=77, parent=root)
    add_question(location, "Asked at a location")
    confirm = client.get(confirm_url(root)).content.decode()
    assert "all 1 question" in confirm
    assert client.post(confirm_url(root)).status_code == 302
    assert OutboxEntry.unscoped.get().business == root

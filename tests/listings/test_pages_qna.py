"""The Q&A tab of a business: questions with answers, paginated; delete all with confirmation."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Business, Role
from listings.models import Answer, Question
from listings.services import qna_delete_all
from outbox.models import OutboxEntry
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
    client.post(confirm_url(business))
    client.post(confirm_url(business))
    assert OutboxEntry.unscoped.count() == 1


@pytest.mark.parametrize("state,code,message,shown", [
    (OutboxEntry.State.ACCEPTED, None, "", "Accepted"),
    (OutboxEntry.State.REJECTED, 1011, "business id is invalid", "business id is invalid"),
])
def test_the_latest_deletions_outcome_is_shown(manager, scope, state, code, message, shown):
    client, business = manager
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
    assert count() == few == 9

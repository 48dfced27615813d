"""Get all questions and answers (10) and delete all questions and answers (11)."""

from __future__ import annotations

import pytest

from provider.types import QnaAnswer, QnaPage, QnaQuestion
from sandbox.formats import clock_time, local, month_day_year
from sandbox.models import Answer, Question

from .conftest import LIVE_DB

pytestmark = LIVE_DB


@pytest.fixture
def asked(ids) -> int:
    """A location of the partner with questions."""
    return (
        Question.objects.filter(partner_id=ids.partner_id)
        .order_by("location__number")
        .values_list("location__number", flat=True)
        .first()
    )


def test_questions_and_answers_of_a_location(client, asked):
    page = client.get_qna(asked, page_size=100)
    stored = {q.question_id: q for q in Question.objects.filter(location__number=asked)}
    assert isinstance(page, QnaPage)
    assert page.total_count == len(stored) == len(page.questions) > 0
    for question in page.questions:
        assert isinstance(question, QnaQuestion)
        row = stored[question.question_id]
        assert question.question == row.text
        assert question.location_name == row.location.name
        assert (question.asked_by_owner, question.answered_by_owner) == (
            row.asked_by_owner,
            row.answered_by_owner,
        )
        assert question.updated_on == month_day_year(local(row.updated_at))
        assert question.time == clock_time(local(row.updated_at))
        answers = list(row.answers.order_by("updated_at", "answer_id"))
        assert question.no_of_answers == len(answers) == len(question.answers)
        for answer, answer_row in zip(question.answers, answers, strict=True):
            assert isinstance(answer, QnaAnswer)
            assert (answer.answer_id, answer.answer, answer.user_category) == (
                answer_row.answer_id,
                answer_row.text,
                answer_row.user_category,
            )
    newest_first = sorted(stored.values(), key=lambda q: (q.updated_at, q.question_id))[::-1]
    assert [q.question_id for q in page.questions] == [q.question_id for q in newest_first]


def test_questions_of_the_account_cover_every_location(client, ids):
    page = client.get_qna(ids.account, start_index=1, page_size=3)
    total = Question.objects.filter(partner_id=ids.partner_id).count()
    assert page.total_count == total
    everything = client.get_qna(ids.account, page_size=100)
    assert [q.question_id for q in page.questions] == [
        q.question_id for q in everything.questions[1:4]
    ]


def test_delete_all_empties_the_business_and_leaves_the_others(client, ids, asked):
    others = Question.objects.exclude(location__number=asked).count()
    assert others > 0

    assert client.delete_all_qna(asked) is None

    page = client.get_qna(asked)
    assert (page.total_count, page.questions) == (0, ())
    assert not Question.objects.filter(location__number=asked).exists()
    assert not Answer.objects.filter(question__location__number=asked).exists()
    assert Question.objects.count() == others

    # The account's id deletes the questions of every location under it.
    assert client.get_qna(ids.account).total_count > 0
    client.delete_all_qna(ids.account)
    assert client.get_qna(ids.account).total_count == 0
    assert not Question.objects.filter(partner_id=ids.partner_id).exists()

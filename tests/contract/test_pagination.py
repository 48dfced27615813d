"""The three ``iter_*`` helpers read every record the sandbox holds, and both sides agree on
the 100000-record window: the client refuses past it without sending, the sandbox accepts a
request that ends exactly at it."""

from __future__ import annotations

import pytest

from provider import MAX_WINDOW, Pages, PageWindowExceeded
from sandbox.models import CompetitorLink, CompetitorReview, Question, SurveyResponse

from .conftest import LIVE_DB, requests_seen, wide_range

pytestmark = LIVE_DB


def test_iter_qna_reads_every_question(client, ids):
    pages = client.iter_qna(ids.account, page_size=4)
    assert isinstance(pages, Pages)
    read = [page for page in pages]
    stored = set(
        Question.objects.filter(partner_id=ids.partner_id).values_list("question_id", flat=True)
    )
    questions = [q.question_id for page in read for q in page.questions]
    assert len(questions) == len(stored) > 4
    assert set(questions) == stored
    assert all(page.total_count == len(stored) for page in read)
    assert client.stats.requests == len(read) == -(-len(stored) // 4)  # no extra request
    assert pages.truncated is False


def test_iter_survey_responses_reads_every_response(client, ids):
    start, end = wide_range()
    pages = client.iter_survey_responses(
        ids.survey, business_number=ids.account, start_date=start, end_date=end, size=2
    )
    read = list(pages)
    stored = set(
        SurveyResponse.objects.filter(survey__survey_id=ids.survey).values_list(
            "response_id", flat=True
        )
    )
    responses = [r.response_id for page in read for r in page.responses]
    assert len(responses) == len(stored) >= 3
    assert set(responses) == stored
    assert [page.page_no for page in read] == list(range(len(read)))
    assert not read[-1].has_next and all(page.has_next for page in read[:-1])
    assert client.stats.requests == len(read)
    assert pages.truncated is False


def test_iter_competitor_review_metrics_reads_every_group(client, ids):
    start, end = wide_range()
    pages = client.iter_competitor_review_metrics(
        ids.account, from_date=start, to_date=end, page_size=25
    )
    read = list(pages)
    competitors = CompetitorLink.objects.filter(location__number__in=ids.locations).values(
        "competitor_id"
    )
    stored = set(
        CompetitorReview.objects.filter(competitor_id__in=competitors)
        .values_list("competitor__name", "source")
        .distinct()
    )
    groups = [(m.competitor_location, m.source) for page in read for m in page]
    assert len(groups) == len(stored) > 25
    assert set(groups) == stored
    assert (
        sum(m.review_count for page in read for m in page)
        == CompetitorReview.objects.filter(competitor_id__in=competitors).count()
    )
    assert all(len(page) == 25 for page in read[:-1])
    # A short last page ends it; a full last page costs one empty request more.
    assert client.stats.requests == len(stored) // 25 + 1
    assert pages.truncated is False


WINDOW_CALLS = {
    "competitor_review_metrics": lambda c, ids: c.competitor_review_metrics(
        ids.account,
        **dict(zip(("from_date", "to_date"), wide_range(), strict=True)),
        start_index=MAX_WINDOW - 10,
        page_size=11,
    ),
    "get_qna": lambda c, ids: c.get_qna(ids.account, start_index=MAX_WINDOW - 1, page_size=2),
    "survey_responses": lambda c, ids: c.survey_responses(
        ids.survey,
        business_number=ids.account,
        start_date=wide_range()[0],
        end_date=wide_range()[1],
        page=MAX_WINDOW // 25,
        size=25,
    ),
    "iter_competitor_review_metrics": lambda c, ids: c.iter_competitor_review_metrics(
        ids.account,
        from_date=wide_range()[0],
        to_date=wide_range()[1],
        start_index=MAX_WINDOW,
    ),
    "iter_qna": lambda c, ids: c.iter_qna(ids.account, start_index=MAX_WINDOW),
    "iter_survey_responses": lambda c, ids: c.iter_survey_responses(
        ids.survey,
        business_number=ids.account,
        start_date=wide_range()[0],
        end_date=wide_range()[1],
        first_page=MAX_WINDOW // 25,
        size=25,
    ),
}


def test_past_the_window_is_refused_before_sending(client, ids):
    for name, call in WINDOW_CALLS.items():
        with pytest.raises(PageWindowExceeded):
            call(client, ids)
        assert client.stats.requests == 0, name
    assert requests_seen(ids.partner_id) == 0  # the sandbox saw nothing either


def test_a_page_ending_exactly_at_the_window_is_accepted(client, ids):
    start, end = wide_range()
    assert client.get_qna(ids.account, start_index=MAX_WINDOW - 25).questions == ()
    assert (
        client.competitor_review_metrics(
            ids.account, from_date=start, to_date=end, start_index=MAX_WINDOW - 100, page_size=100
        )
        == []
    )
    page = client.survey_responses(
        ids.survey,
        business_number=ids.account,
        start_date=start,
        end_date=end,
        page=MAX_WINDOW // 25 - 1,
        size=25,
    )
    assert page.responses == () and page.page_no == MAX_WINDOW // 25 - 1
    assert requests_seen(ids.partner_id) == 3

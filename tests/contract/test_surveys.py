"""List responses for a survey (3)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from provider import Rejected
from provider.types import SurveyResponse, SurveyResponsesPage
from sandbox.models import Survey
from sandbox.models import SurveyResponse as StoredResponse
from sandbox.seeding import seed_partner

from .conftest import LIVE_DB, OTHER_KEY, wide_range

pytestmark = LIVE_DB


def us_date(moment: datetime.datetime) -> str:
    return timezone.localtime(moment).strftime("%m/%d/%Y")


def test_responses_of_a_survey(client, ids):
    start, end = wide_range()
    page = client.survey_responses(
        ids.survey,
        business_number=ids.account,
        start_date=start,
        end_date=end,
        size=100,
        include_ticket_ids=True,
    )
    stored = {r.response_id: r for r in StoredResponse.objects.filter(survey__survey_id=ids.survey)}
    assert isinstance(page, SurveyResponsesPage)
    assert (page.total_responses, page.page_no, page.page_size, page.has_next) == (
        len(stored),
        0,
        100,
        False,
    )
    assert {r.response_id for r in page.responses} == set(stored)
    for response in page.responses:
        assert isinstance(response, SurveyResponse)
        row = stored[response.response_id]
        assert response.survey_id == ids.survey
        assert response.customer_id == row.customer_id
        assert response.customer_name == row.customer_name
        assert response.location_name == row.location.name
        assert response.survey_name == row.survey.name
        assert response.completed is row.completed and response.ticketed is row.ticketed
        assert response.request_date == us_date(row.request_date)
        assert response.response_date == us_date(row.response_date)
        assert response.ticket_ids == tuple(row.ticket_ids)
        assert response.question_count == row.question_count
        assert [dict(a) for a in response.answers] == row.answers
        assert response.overall_score == row.overall_score
        assert response.custom_param == row.custom_param
        assert response.extra_params == row.extra_params
    # sortby=date, sorder=asc: oldest response first.
    ordered = sorted(stored.values(), key=lambda r: (r.response_date, r.response_id))
    assert [r.response_id for r in page.responses] == [r.response_id for r in ordered]


def test_ticket_ids_only_when_asked_and_descending_order(client, ids):
    start, end = wide_range()
    page = client.survey_responses(
        ids.survey,
        business_number=ids.account,
        start_date=start,
        end_date=end,
        sort_order="desc",
    )
    assert page.responses
    assert all("ticketIds" not in r.raw for r in page.responses)
    rows = StoredResponse.objects.filter(survey__survey_id=ids.survey)
    newest = rows.order_by("-response_date", "-response_id")
    assert [r.response_id for r in page.responses] == [r.response_id for r in newest]


def test_a_one_day_range_includes_that_whole_day(client, ids):
    row = StoredResponse.objects.filter(survey__survey_id=ids.survey).order_by("response_id")[0]
    day = timezone.localtime(row.response_date).date()
    page = client.survey_responses(
        ids.survey, business_number=ids.account, start_date=day, end_date=day, size=100
    )
    midnight = timezone.make_aware(datetime.datetime.combine(day, datetime.time()))
    expected = StoredResponse.objects.filter(
        survey__survey_id=ids.survey,
        response_date__gte=midnight,
        response_date__lt=midnight + datetime.timedelta(days=1),
    )
    assert row.response_id in {r.response_id for r in page.responses}
    assert {r.response_id for r in page.responses} == set(
        expected.values_list("response_id", flat=True)
    )


def test_paging_through_responses(client, ids):
    start, end = wide_range()
    total = StoredResponse.objects.filter(survey__survey_id=ids.survey).count()
    first = client.survey_responses(
        ids.survey, business_number=ids.account, start_date=start, end_date=end, size=2
    )
    second = client.survey_responses(
        ids.survey, business_number=ids.account, start_date=start, end_date=end, page=1, size=2
    )
    assert (len(first.responses), first.has_next, first.total_responses) == (2, True, total)
    assert second.page_no == 1 and second.has_next == (total > 4)
    assert not {r.response_id for r in first.responses} & {r.response_id for r in second.responses}


def test_responses_are_those_of_locations_under_the_business_number(client, ids):
    survey = Survey.objects.get(survey_id=ids.survey)
    row = StoredResponse.objects.filter(survey=survey).order_by("response_id")[0]
    start, end = wide_range()
    page = client.survey_responses(
        ids.survey, business_number=row.location.number, start_date=start, end_date=end, size=100
    )
    expected = StoredResponse.objects.filter(survey=survey, location=row.location)
    assert {r.response_id for r in page.responses} == set(
        expected.values_list("response_id", flat=True)
    )


def test_an_unknown_or_foreign_survey_is_rejected(client, ids, dialect):
    other = seed_partner(api_key=OTHER_KEY, locations=2, seed=6, dialect=dialect)
    start, end = wide_range()
    for survey in (999_999_999, other["survey_ids"][0]):
        with pytest.raises(Rejected) as caught:
            client.survey_responses(
                survey, business_number=ids.account, start_date=start, end_date=end
            )
        assert (caught.value.code, caught.value.http_status) == (1315, 400)

"""List responses for a survey (operation 3)."""

from __future__ import annotations

import datetime

from sandbox.catalog import SURVEY_QUESTION_TYPES
from sandbox.models import Survey, SurveyResponse
from sandbox.tree import subtree_ids
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB


def responses(api, survey_id, number, body=None, **params):
    return api.post(
        f"/v1/survey/ext/list/responses/{survey_id}",
        params={"businessNumber": number, **params},
        json=body or {},
    )


def busiest_survey(seeded):
    return max(
        Survey.objects.filter(survey_id__in=seeded["survey_ids"]), key=lambda s: s.responses.count()
    )


def test_page_shape_and_every_question_type(api, seeded):
    survey = busiest_survey(seeded)
    body = responses(api, survey.survey_id, survey.owner.number).json()
    assert set(body) == {"responseList", "totalResponses", "pageNo", "pageSize", "hasNext"}
    assert body["totalResponses"] == survey.responses.count() > 0
    assert body["pageNo"] == 0 and body["pageSize"] == 25
    kinds = set()
    for item in body["responseList"]:
        assert item["surveyId"] == survey.survey_id
        assert "ticketIds" not in item
        assert len(item["requestDate"]) == 10 and item["requestDate"][2] == "/"
        for answer in item["answers"]:
            kinds.add(answer["questionType"])
            assert ("answer" in answer) == (answer["questionType"] != "label")
            if answer["questionType"].startswith("matrix"):
                assert answer["childAnswers"]
    assert kinds == set(SURVEY_QUESTION_TYPES)


def test_pagination_and_sorting(api, seeded):
    survey = busiest_survey(seeded)
    owner = survey.owner.number
    everything = responses(api, survey.survey_id, owner, size=1000, sorder="asc").json()
    ids = [item["responseId"] for item in everything["responseList"]]
    assert len(ids) == everything["totalResponses"] and not everything["hasNext"]
    page = responses(api, survey.survey_id, owner, page=1, size=2, sorder="asc").json()
    assert [item["responseId"] for item in page["responseList"]] == ids[2:4]
    assert page["hasNext"] == (len(ids) > 4) and page["pageNo"] == 1
    descending = responses(api, survey.survey_id, owner, size=1000, sorder="desc").json()
    assert [item["responseId"] for item in descending["responseList"]] == ids[::-1]


def test_ticket_ids_only_when_asked(api, seeded):
    survey = busiest_survey(seeded)
    body = responses(api, survey.survey_id, survey.owner.number, includeTicketId="true").json()
    assert all(isinstance(item["ticketIds"], list) for item in body["responseList"])


def test_date_filter(api, seeded):
    survey = busiest_survey(seeded)
    middle = survey.responses.order_by("response_date")[survey.responses.count() // 2]
    start = middle.response_date.replace(tzinfo=None)
    body = {"startDate": start.strftime("%m/%d/%Y %H:%M:%S")}
    page = responses(api, survey.survey_id, survey.owner.number, body, size=1000).json()
    expected = survey.responses.filter(
        response_date__gte=middle.response_date.replace(microsecond=0)
    )
    assert page["totalResponses"] == expected.count()
    end = {"endDate": (start - datetime.timedelta(days=3650)).strftime("%m/%d/%Y")}
    assert responses(api, survey.survey_id, survey.owner.number, end).json()["totalResponses"] == 0


def test_business_number_narrows_to_its_locations(api, seeded):
    survey = busiest_survey(seeded)
    response = SurveyResponse.objects.filter(survey=survey).first()
    body = responses(api, survey.survey_id, response.location.number, size=1000).json()
    assert (
        body["totalResponses"]
        == survey.responses.filter(location_id__in=subtree_ids(response.location)).count()
    )


def test_invalid_surveys_are_1315(api, seeded, seeded_b):
    owner = seeded["account_number"]
    assert_error(responses(api, 1, owner), 400, 1315)
    assert_error(responses(api, "abc", owner), 400, 1315)
    assert_error(responses(api, seeded_b["survey_ids"][0], owner), 400, 1315)


def test_survey_errors(api, seeded):
    survey_id = seeded["survey_ids"][0]
    owner = seeded["account_number"]
    assert_error(responses(api, survey_id, 404404), 404, 1011)
    assert_error(api.post(f"/v1/survey/ext/list/responses/{survey_id}", json={}), 400, 400)
    # The window is page * size + size: exactly 100000 is accepted.
    assert responses(api, survey_id, owner, page=99999, size=1).status_code == 200
    assert responses(api, survey_id, owner, page=99, size=1000).status_code == 200
    assert_error(responses(api, survey_id, owner, page=100000, size=1), 400, 1164)
    assert_error(responses(api, survey_id, owner, size=0), 400, 1164)
    assert_error(responses(api, survey_id, owner, page=-1), 400, 400)
    assert_error(responses(api, survey_id, owner, sorder="up"), 400, 400)
    assert_error(responses(api, survey_id, owner, sortby="mood"), 400, 400)
    assert_error(responses(api, survey_id, owner, includeTicketId="maybe"), 400, 400)
    assert_error(responses(api, survey_id, owner, {"startDate": 20240101}), 400, 400)

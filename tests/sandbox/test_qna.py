"""Get all questions and answers (10) and delete them all (11)."""

from __future__ import annotations

import re

from sandbox.models import Answer, Question
from sandbox.tree import subtree_ids
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB


def get_qna(api, business_id, body=None):
    return api.post("/v1/qna/get", params={"businessId": business_id}, json=body or {})


def test_entry_shape(api, seeded):
    body = get_qna(api, seeded["account_number"], {"startIndex": 0, "pageSize": 100}).json()
    assert (
        body["totalCount"]
        == Question.objects.filter(location__number__in=seeded["location_numbers"]).count()
    )
    assert body["questionsAndAnswers"]
    for entry in body["questionsAndAnswers"]:
        assert re.fullmatch(r"\d\d:\d\d [AP]M", entry["time"])
        assert re.fullmatch(r"[A-Z][a-z]{2} \d\d, \d{4}", entry["updatedOn"])
        assert entry["noOfAnswers"] == len(entry["answers"])
        assert isinstance(entry["askedByOwner"], bool) and entry["locationName"]
        for answer in entry["answers"]:
            assert isinstance(answer["answerId"], int) and answer["answer"]
            assert re.fullmatch(r"\d\d:\d\d [AP]M", answer["time"])


def test_pagination(api, seeded):
    account = seeded["account_number"]
    everything = get_qna(api, account, {"startIndex": 0, "pageSize": 1000}).json()
    ids = [entry["questionId"] for entry in everything["questionsAndAnswers"]]
    page = get_qna(api, account, {"startIndex": 3, "pageSize": 4}).json()
    assert page["totalCount"] == len(ids)
    assert [entry["questionId"] for entry in page["questionsAndAnswers"]] == ids[3:7]
    default = get_qna(api, account).json()
    assert len(default["questionsAndAnswers"]) == min(25, len(ids))
    assert get_qna(api, account, {"startIndex": 99000, "pageSize": 1000}).status_code == 200
    assert_error(get_qna(api, account, {"startIndex": 99000, "pageSize": 1001}), 400, 1164)
    # The provider files Get Q&A's input errors under 401 with 2466.
    body = assert_error(get_qna(api, account, {"startIndex": "0"}), 401, 2466)
    assert body["message"] == "Invalid input request"


def test_delete_all_of_a_business(api, seeded):
    location = Question.objects.filter(location__number__in=seeded["location_numbers"])[0].location
    others = Question.objects.exclude(location=location).count()
    response = api.delete("/v1/qna/question/deleteAll", params={"businessId": location.number})
    assert response.status_code == 200 and response.content == b""
    assert get_qna(api, location.number).json() == {"totalCount": 0, "questionsAndAnswers": []}
    assert Question.objects.count() == others
    assert not Answer.objects.filter(question__location=location).exists()


def test_delete_all_under_an_enterprise_with_a_body(api, enterprise):
    question = Question.objects.filter(location_id__in=subtree_ids(enterprise)).first()
    response = api.delete(
        "/v1/qna/question/deleteAll",
        params={"businessId": enterprise.number},
        json={"questionId": question.question_id, "answerId": 2},
    )
    assert response.status_code == 200
    assert not Question.objects.filter(location_id__in=subtree_ids(enterprise)).exists()


def test_delete_all_refuses_a_question_id_it_does_not_know_and_deletes_nothing(api, enterprise):
    kept = Question.objects.filter(location_id__in=subtree_ids(enterprise)).count()
    elsewhere = Question.objects.exclude(location_id__in=subtree_ids(enterprise)).first()
    for question_id, code, message in [
        ("12", 2482, "Question Id is Invalid"),
        (1.5, 2482, "Question Id is Invalid"),
        (10**30, 2482, "Question Id is Invalid"),
        (1, 2461, "No question found with provided request"),
        (elsewhere.question_id, 2461, "No question found with provided request"),
    ]:
        response = api.delete("/v1/qna/question/deleteAll",
                              params={"businessId": enterprise.number},
                              json={"questionId": question_id})
        # The provider files these under 401.
        assert assert_error(response, 401, code)["message"] == message, question_id
    assert Question.objects.filter(location_id__in=subtree_ids(enterprise)).count() == kept


def test_qna_errors(api):
    assert_error(get_qna(api, 8), 404, 1011)
    assert_error(api.post("/v1/qna/get", json={}), 401, 2466)
    assert_error(api.delete("/v1/qna/question/deleteAll", params={"businessId": 8}), 404, 1011)
    assert_error(api.delete("/v1/qna/question/deleteAll"), 400, 400)

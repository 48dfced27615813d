"""Questions and answers: get all (10), delete all (11)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse, JsonResponse

from sandbox.endpoint import empty_ok, provider_endpoint
from sandbox.errors import INPUT_ERROR, ApiError
from sandbox.formats import clock_time, local, month_day_year
from sandbox.inputs import body_int, check_window, is_id, json_object, query_number
from sandbox.models import Answer, PartnerAccount, Question
from sandbox.tree import find_business, subtree_ids

DEFAULT_PAGE_SIZE = 25
# The provider files its Q&A input errors under HTTP 401, each with its own code.
INVALID_INPUT = (401, 2466, "Invalid input request")
INVALID_QUESTION_ID = (401, 2482, "Question Id is Invalid")
NO_SUCH_QUESTION = (401, 2461, "No question found with provided request")


def answer_entry(answer: Answer) -> dict:
    when = local(answer.updated_at)
    return {
        "answerId": answer.answer_id,
        "answer": answer.text,
        "updatedBy": answer.updated_by,
        "updatedOn": month_day_year(when),
        "time": clock_time(when),
        "userProfileLogoUrl": answer.user_profile_logo_url,
        "answeredByOwner": answer.answered_by_owner,
        "userCategory": answer.user_category,
    }


def question_entry(question: Question) -> dict:
    when = local(question.updated_at)
    answers = list(question.answers.all())
    return {
        "questionId": question.question_id,
        "answeredByOwner": question.answered_by_owner,
        "askedByOwner": question.asked_by_owner,
        "question": question.text,
        "updatedBy": question.updated_by,
        "time": clock_time(when),
        "updatedOn": month_day_year(when),
        "userProfileLogoUrl": question.user_profile_logo_url,
        "userCategory": question.user_category,
        "locationName": question.location.name,
        "noOfAnswers": len(answers),
        "answers": [answer_entry(answer) for answer in answers],
    }


@provider_endpoint("POST")
def get_questions(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    """Q&A of a location, or of every location under a reseller or enterprise; newest first."""
    try:
        number = query_number(request, "businessId")
        body = json_object(request, required=False)
        start = body_int(body, "startIndex", 0)
        size = body_int(body, "pageSize", DEFAULT_PAGE_SIZE)
    except ApiError as error:
        if error.code != INPUT_ERROR:
            raise
        raise ApiError(*INVALID_INPUT) from error
    check_window(start, size)
    business = find_business(partner, number)
    questions = Question.objects.filter(location_id__in=subtree_ids(business))
    total = questions.count()
    page = (
        questions.select_related("location")
        .prefetch_related(
            Prefetch("answers", queryset=Answer.objects.order_by("updated_at", "answer_id"))
        )
        .order_by("-updated_at", "-question_id")[start : start + size]
    )
    return JsonResponse(
        {"totalCount": total, "questionsAndAnswers": [question_entry(q) for q in page]}
    )


@provider_endpoint("DELETE")
def delete_all_questions(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    """Delete every question (and its answers) of the business and the locations under it.

    The optional body's ``questionId`` and ``answerId`` do not narrow the deletion: the operation
    deletes all. A ``questionId`` that is no integer is 2482, one that names no question of the
    business 2461, as the provider answers them.
    """
    number = query_number(request, "businessId")
    body = json_object(request, required=False)
    question_id = body.get("questionId")
    if question_id is not None and not is_id(question_id):
        raise ApiError(*INVALID_QUESTION_ID)
    body_int(body, "answerId")
    business = find_business(partner, number)
    with transaction.atomic():
        questions = Question.objects.filter(location_id__in=subtree_ids(business))
        if question_id is not None and not questions.filter(question_id=question_id).exists():
            raise ApiError(*NO_SUCH_QUESTION)
        Answer.objects.filter(question__in=questions).delete()
        questions.delete()
    return empty_ok()

"""Questions and answers: get all (10), delete all (11)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse, JsonResponse

from sandbox.endpoint import empty_ok, provider_endpoint
from sandbox.formats import clock_time, local, month_day_year
from sandbox.inputs import body_int, check_window, json_object, query_number
from sandbox.models import Answer, PartnerAccount, Question
from sandbox.tree import find_business, subtree_ids

DEFAULT_PAGE_SIZE = 25


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
    number = query_number(request, "businessId")
    body = json_object(request, required=False)
    start = body_int(body, "startIndex", 0)
    size = body_int(body, "pageSize", DEFAULT_PAGE_SIZE)
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

    The optional body's ``questionId`` and ``answerId`` are checked for type but do not narrow
    the deletion: the operation deletes all.
    """
    number = query_number(request, "businessId")
    body = json_object(request, required=False)
    body_int(body, "questionId")
    body_int(body, "answerId")
    business = find_business(partner, number)
    with transaction.atomic():
        questions = Question.objects.filter(location_id__in=subtree_ids(business))
        Answer.objects.filter(question__in=questions).delete()
        questions.delete()
    return empty_ok()

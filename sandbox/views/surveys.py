"""List responses for a survey (3)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from sandbox.endpoint import provider_endpoint
from sandbox.errors import ApiError, bad_input
from sandbox.formats import local, us_date
from sandbox.inputs import (
    check_date_order,
    check_window,
    is_digits,
    json_object,
    parse_date_time,
    query_bool,
    query_int,
    query_number,
)
from sandbox.models import PartnerAccount, Survey, SurveyResponse
from sandbox.tree import find_business, subtree_ids

SORT_FIELDS = {
    "date": "response_date",
    "responseDate": "response_date",
    "requestDate": "request_date",
}
DEFAULT_PAGE_SIZE = 25


def invalid_survey() -> ApiError:
    return ApiError(400, 1315, "Invalid survey.")


def response_entry(response: SurveyResponse, *, with_tickets: bool) -> dict:
    entry = {
        "responseId": response.response_id,
        "surveyId": response.survey.survey_id,
        "customerId": response.customer_id,
        "requestDate": us_date(local(response.request_date)),
        "responseDate": us_date(local(response.response_date)),
        "completed": response.completed,
        "ticketed": response.ticketed,
        "questionCount": response.question_count,
        "locale": response.locale,
        "surveyName": response.survey.name,
        "locationName": response.location.name,
        "customerName": response.customer_name,
        "answers": response.answers,
        "overallScore": response.overall_score,
        "customParam": response.custom_param,
        "extraParams": response.extra_params,
    }
    if with_tickets:
        entry["ticketIds"] = response.ticket_ids
    return entry


@provider_endpoint("POST")
def survey_responses(request: HttpRequest, partner: PartnerAccount, survey_id: str) -> HttpResponse:
    number = query_number(request, "businessNumber")
    page = query_int(request, "page", 0)
    size = query_int(request, "size", DEFAULT_PAGE_SIZE)
    if page < 0:
        raise bad_input("Query parameter page must be 0 or more")
    check_window(page * size, size)
    sort_by = request.GET.get("sortby") or "date"
    if sort_by not in SORT_FIELDS:
        raise bad_input(f"Query parameter sortby must be one of {', '.join(SORT_FIELDS)}")
    sort_order = (request.GET.get("sorder") or "desc").lower()
    if sort_order not in ("asc", "desc"):
        raise bad_input("Query parameter sorder must be asc or desc")
    with_tickets = query_bool(request, "includeTicketId", False)
    body = json_object(request, required=False)
    start = parse_date_time(body.get("startDate"), "startDate", end_of_day=False)
    end = parse_date_time(body.get("endDate"), "endDate", end_of_day=True)
    check_date_order(start, end, "startDate", "endDate")

    business = find_business(partner, number)
    if not is_digits(survey_id.strip()):
        raise invalid_survey()
    survey = Survey.objects.filter(partner=partner, survey_id=int(survey_id)).first()
    if survey is None:
        raise invalid_survey()

    responses = SurveyResponse.objects.filter(survey=survey, location_id__in=subtree_ids(business))
    # Dates in the body are read in the project's time zone, like the dates of the reply.
    if start:
        responses = responses.filter(response_date__gte=timezone.make_aware(start))
    if end:
        responses = responses.filter(response_date__lte=timezone.make_aware(end))
    field = SORT_FIELDS[sort_by]
    ordering = (field, "response_id") if sort_order == "asc" else (f"-{field}", "-response_id")
    total = responses.count()
    rows = responses.select_related("survey", "location").order_by(*ordering)[
        page * size : page * size + size
    ]
    return JsonResponse(
        {
            "responseList": [response_entry(row, with_tickets=with_tickets) for row in rows],
            "totalResponses": total,
            "pageNo": page,
            "pageSize": size,
            "hasNext": (page + 1) * size < total,
        }
    )

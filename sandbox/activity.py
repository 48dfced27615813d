"""Things that happen at the provider without the portal asking, for demos and tests: a customer
completes a survey. Each publishes its webhook event like the real service would."""

from __future__ import annotations

import datetime
import random
import secrets

from django.db import transaction
from django.utils import timezone

from sandbox.catalog import SURVEY_QUESTION_TYPES
from sandbox.events import SURVEY_COMPLETED, event_publish
from sandbox.models import Business, Survey, SurveyResponse
from sandbox.seeding import person, survey_answers
from sandbox.tree import subtree_locations


def _unused_response_id() -> int:
    while True:
        candidate = 10**11 + secrets.randbelow(9 * 10**11)
        if not SurveyResponse.objects.filter(response_id=candidate).exists():
            return candidate


@transaction.atomic
def survey_response_add(*, survey: Survey, location: Business | None = None,
                        at: datetime.datetime | None = None) -> SurveyResponse:
    """A completed response to ``survey`` from one of its owner's locations (any, if not given);
    publishes SURVEY_COMPLETED for that location."""
    at = at or timezone.now()
    if location is None:
        location = subtree_locations(survey.owner).order_by("number").first()
        if location is None:
            raise ValueError(f"Survey {survey.survey_id} has no location to answer it.")
    rng = random.Random(secrets.randbits(64))  # noqa: S311 - sample answers, not secrets
    answers = survey_answers(rng, location.name)
    nps = next(int(a["answer"]) for a in answers if a["questionType"] == "nps")
    response = SurveyResponse.objects.create(
        partner_id=survey.partner_id, survey=survey, response_id=_unused_response_id(),
        location=location, customer_id=10**9 + secrets.randbelow(9 * 10**9),
        customer_name=person(rng), request_date=at - datetime.timedelta(hours=2),
        response_date=at, completed=True, question_count=len(SURVEY_QUESTION_TYPES),
        locale=survey.locale, answers=answers, overall_score=str(nps * 10),
    )
    event_publish(business=location, event_name=SURVEY_COMPLETED, at=at, data={
        "surveyId": survey.survey_id,
        "responseId": response.response_id,
        "customerName": response.customer_name,
        "overallScore": response.overall_score,
    })
    return response

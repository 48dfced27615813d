"""Survey responses: survey picker, date range, paginated table, one response in full, and
adding a survey by id."""

import datetime as dt
import itertools
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Role
from reviews_app.models import Survey, SurveyResponse
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

_ids = itertools.count(10_000)


def list_url(reseller, query=""):
    return reverse("survey_responses", args=[reseller.slug]) + query


def detail_url(reseller, remote_id):
    return reverse("survey_response_detail", args=[reseller.slug, remote_id])


def answer(title, kind, value=None, low=0, high=0, **more):
    entry = {"questionTitle": title, "questionType": kind, "visible": True, "hidden": False,
             "minValue": low, "maxValue": high, **more}
    if value is not None:
        entry["answer"] = value
    return entry


EVERY_TYPE = [
    answer("Thank you for visiting Harbor Cafe!", "label"),
    answer("How did you hear about us?", "radio", "Friend"),
    answer("What did you buy?", "checkbox", "Service, Gift card"),
    answer("Tell us more about your visit", "textarea", "Great coffee.\nFriendly staff."),
    answer("Name of the staff member", "text", "Ana"),
    answer("Which day did you visit?", "dropdown", "Weekend"),
    answer("Rate your overall experience", "rating", "4", 1, 5),
    answer("Rate each aspect", "matrixdropdown", "", childAnswers=[
        answer("Staff", "dropdown", "Excellent"), answer("Cleanliness", "dropdown", "Good")]),
    answer("How likely are you to recommend us?", "nps", "9", 0, 10),
    answer("Compare us", "matrixradio", "", childAnswers=[answer("Price", "radio", "Fair")]),
    answer("An internal question", "text", "hidden value", hidden=True),
    answer("Anything else?", "text"),
]


def add_survey(reseller, name="Visit survey"):
    return Survey.unscoped.create(reseller=reseller, remote_id=next(_ids), name=name)


def add_response(survey, day=dt.date(2026, 3, 1), customer="Jo Doe", **extra):
    return SurveyResponse.unscoped.create(
        reseller=survey.reseller, survey=survey, remote_id=next(_ids), customer_name=customer,
        location_name="Harbor Cafe", response_date=day, request_date=day, completed=True,
        overall_score="8.5", question_count=len(EVERY_TYPE),
        answers=extra.pop("answers", EVERY_TYPE), **extra)


@pytest.fixture
def viewer(member_client):
    client, membership = member_client(Role.VIEWER)
    return client, membership.reseller


def test_the_first_survey_is_shown_and_others_can_be_picked(viewer):
    client, reseller = viewer
    first, second = add_survey(reseller, "A survey"), add_survey(reseller, "B survey")
    add_response(first, customer="First customer")
    add_response(second, customer="Second customer")
    add_response(add_survey(ResellerFactory()), customer="Foreign customer")
    page = client.get(list_url(reseller)).content.decode()
    assert "First customer" in page and "Second customer" not in page
    assert f'value="{second.remote_id}"' in page
    page = client.get(list_url(reseller, f"?survey={second.remote_id}")).content.decode()
    assert "Second customer" in page and "First customer" not in page
    assert "Foreign customer" not in page


def test_another_tenants_survey_or_a_bad_id_in_the_picker_is_404(viewer):
    client, reseller = viewer
    add_survey(reseller)
    theirs = add_survey(ResellerFactory())
    assert client.get(list_url(reseller, f"?survey={theirs.remote_id}")).status_code == 404
    assert client.get(list_url(reseller, "?survey=abc")).status_code == 404


def test_the_date_range_filters_by_answer_date(viewer):
    client, reseller = viewer
    survey = add_survey(reseller)
    add_response(survey, day=dt.date(2026, 1, 10), customer="January")
    add_response(survey, day=dt.date(2026, 2, 10), customer="February")
    add_response(survey, day=dt.date(2026, 3, 10), customer="March")
    response = client.get(list_url(reseller, "?date_from=2026-02-01&date_to=2026-02-28"))
    assert [r.customer_name for r in response.context["page_obj"]] == ["February"]
    response = client.get(list_url(reseller, "?date_from=2026-02-01"))
    assert [r.customer_name for r in response.context["page_obj"]] == ["March", "February"]


def test_a_reversed_range_is_reported_and_the_survey_kept(viewer):
    client, reseller = viewer
    add_survey(reseller, "A")
    second = add_survey(reseller, "B")
    response = client.get(list_url(reseller, f"?survey={second.remote_id}"
                                             "&date_from=2026-03-01&date_to=2026-02-01"))
    assert "on or after the start date" in response.context["filters"].errors["date_to"][0]
    assert response.context["survey"] == second


def test_responses_are_paginated(viewer):
    client, reseller = viewer
    survey = add_survey(reseller)
    for index in range(30):
        add_response(survey, day=dt.date(2026, 1, 1) + dt.timedelta(days=index))
    response = client.get(list_url(reseller))
    assert len(response.context["page_obj"]) == 25
    assert "Page 1 of 2" in response.content.decode()
    assert len(client.get(list_url(reseller, "?page=2")).context["page_obj"]) == 5


def test_a_response_is_shown_in_full_with_every_question_type(viewer):
    client, reseller = viewer
    response = add_response(add_survey(reseller, "Visit survey"), ticket_ids=[77, 78],
                            raw={"customParam": {"visit": "dine-in"}})
    page = client.get(detail_url(reseller, response.remote_id)).content.decode()
    for text in ("Thank you for visiting Harbor Cafe!", "How did you hear about us?", "Friend",
                 "<li>Service</li><li>Gift card</li>", "Great coffee.<br>Friendly staff.",
                 "Ana", "Weekend", "<strong>4</strong> / 5",
                 '<th scope="row">Staff</th><td>Excellent</td>',
                 '<th scope="row">Cleanliness</th><td>Good</td>',
                 "<strong>9</strong> / 10", "promoter",
                 '<th scope="row">Price</th><td>Fair</td>', "not shown to the customer",
                 "hidden value", "Not answered.", "77, 78", "visit", "dine-in", "Jo Doe"):
        assert text in page, text


def test_another_tenants_response_is_404(viewer):
    client, reseller = viewer
    theirs = add_response(add_survey(ResellerFactory()))
    assert client.get(detail_url(reseller, theirs.remote_id)).status_code == 404
    assert client.get(detail_url(reseller, 1)).status_code == 404


def test_another_tenants_member_gets_404(member_client):
    client, _ = member_client(Role.OWNER)
    other = ResellerFactory()
    response = add_response(add_survey(other))
    assert client.get(list_url(other)).status_code == 404
    assert client.get(detail_url(other, response.remote_id)).status_code == 404


def test_a_viewer_cannot_add_surveys(viewer):
    client, reseller = viewer
    page = client.get(list_url(reseller)).content.decode()
    assert "Follow a survey" not in page
    assert client.post(list_url(reseller), {"remote_id": "123"}).status_code == 403
    assert not Survey.unscoped.exists()


def test_a_subtree_member_is_refused(member_client):
    reseller = ResellerFactory()
    client, _ = member_client(Role.MANAGER, reseller=reseller,
                              limited_to=BusinessFactory(reseller=reseller))
    survey_response = add_response(add_survey(reseller))
    assert client.get(list_url(reseller)).status_code == 403
    assert client.get(detail_url(reseller, survey_response.remote_id)).status_code == 403
    assert client.post(list_url(reseller), {"remote_id": "5"}).status_code == 403


@pytest.mark.parametrize("data,message", [
    ({"remote_id": ""}, "This field is required."),
    ({"remote_id": "abc"}, "Enter a whole number."),
    ({"remote_id": "0"}, "greater than or equal to 1"),
    ({"remote_id": "EXISTING"}, "already in the list"),
    ({"remote_id": "7", "name": "x" * 256}, "at most 255 characters"),
])
def test_adding_a_survey_reports_errors_on_the_field(member_client, data, message):
    client, membership = member_client(Role.MANAGER)
    existing = add_survey(membership.reseller)
    data = {k: (str(existing.remote_id) if v == "EXISTING" else v) for k, v in data.items()}
    response = client.post(list_url(membership.reseller), data)
    assert response.status_code == 200
    form = response.context["add_form"]
    assert any(message in error for errors in form.errors.values() for error in errors)
    assert Survey.unscoped.count() == 1


def test_the_query_count_does_not_grow_with_responses(viewer):
    client, reseller = viewer
    survey = add_survey(reseller)
    add_response(survey)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(list_url(reseller)).status_code == 200
        return len(queries)

    few = count()
    for index in range(40):
        add_response(survey, day=dt.date(2026, 1, 1) + dt.timedelta(days=index))
        add_survey(reseller, f"Z survey {index}")  # listed after the one shown
    assert count() == few == 8  # with the bell's unread count


def test_question_types_and_parameters_read_in_words(viewer):
    client, reseller = viewer
    response = add_response(add_survey(reseller), locale="en_US", raw={
        "customParam": {"visitType": "in-store"}, "extraParams": {"post_visit_campaign": "2"}})
    page = client.get(detail_url(reseller, response.remote_id)).content.decode()
    for words in ("Single choice", "Multiple choice", "Long text", "Short text", "Drop-down",
                  "Rating", "Matrix of drop-downs", "Net Promoter Score",
                  "Matrix of single choices", "<dt>Visit type</dt><dd>in-store</dd>",
                  "<dt>Post visit campaign</dt><dd>2</dd>", "<dt>Language</dt><dd>English</dd>"):
        assert words in page, words
    shown = re.sub(r'class="[^"]*"', "", page)  # the codes may stay in class names
    for code in ("radio", "matrixdropdown", "matrixradio", "textarea", "nps", "visitType",
                 "en_US"):
        assert f">{code}<" not in shown and f"> {code}<" not in shown, code


def test_a_question_type_the_portal_does_not_know_shows_no_code(viewer):
    client, reseller = viewer
    response = add_response(add_survey(reseller),
                            answers=[answer("Upload a photo", "fileupload", "a.jpg")])
    page = client.get(detail_url(reseller, response.remote_id)).content.decode()
    assert "Upload a photo" in page and "a.jpg" in page
    assert "fileupload</small>" not in page

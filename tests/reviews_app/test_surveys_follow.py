"""Following a survey checks its id with the provider first (the page and the API), a
followed survey can be unfollowed (with a confirmation, or DELETE), and a survey the provider
no longer knows neither fails every sync nor hides: the page says so and offers to unfollow."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import AuditEvent, Role
from portal.tenancy import tenant_scope
from reviews_app.models import Survey, SurveyResponse
from reviews_app.services import survey_add
from sandbox import models as sandbox
from tests.factories import MembershipFactory, ResellerFactory
from tests.live import connect_reseller

KEY = "survey-follow-partner-key"
MADE_UP = 999999999


def list_url(reseller, query=""):
    return reverse("survey_responses", args=[reseller.slug]) + query


def unfollow_url(reseller, remote_id):
    return reverse("survey_unfollow_confirm", args=[reseller.slug, remote_id])


def api_url(reseller, remote_id=None):
    if remote_id is None:
        return reverse("api_surveys", args=[reseller.slug])
    return reverse("api_survey_detail", args=[reseller.slug, remote_id])


@pytest.fixture
def live(live_server, settings, tmp_path, finish_live_requests):
    """A reseller whose provider is the sandbox, with the sandbox's surveys (none followed)."""
    settings.DATA_DIR = tmp_path
    settings.PROVIDER_MAX_RETRIES = 0
    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    reseller, seeded = connect_reseller(live_server, key=KEY, locations=12, seed=5,
                                        rate_limit_count=1000)
    survey = (sandbox.Survey.objects.filter(survey_id__in=seeded["survey_ids"],
                                            responses__isnull=False)
              .order_by("survey_id").first())
    return reseller, survey


@pytest.fixture
def unreachable(settings, tmp_path):
    settings.PROVIDER_MAX_RETRIES = 0
    settings.DATA_DIR = tmp_path
    return ResellerFactory(provider_base_url="http://127.0.0.1:9/sandbox")


def log_in(client, reseller, role=Role.MANAGER):
    client.force_login(MembershipFactory(reseller=reseller, role=role).user)
    return client


# -- following, on the page ----------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_manager_follows_a_survey_the_provider_knows(client, live):
    reseller, survey = live
    client = log_in(client, reseller)
    assert "No survey is followed yet" in client.get(list_url(reseller)).content.decode()
    response = client.post(list_url(reseller), {"remote_id": str(survey.survey_id), "name": ""})
    assert response.status_code == 302
    assert response.url == list_url(reseller, f"?survey={survey.survey_id}")
    followed = Survey.unscoped.get(reseller=reseller)
    # Named by the provider's responses when the manager gave no name.
    assert (followed.remote_id, followed.name) == (survey.survey_id, survey.name)
    assert AuditEvent.unscoped.filter(reseller=reseller, action="survey.added").exists()


@pytest.mark.django_db(transaction=True)
def test_a_made_up_survey_id_is_a_field_error_and_nothing_is_saved(client, live):
    reseller, _ = live
    client = log_in(client, reseller)
    response = client.post(list_url(reseller), {"remote_id": str(MADE_UP), "name": "Exit poll"})
    assert response.status_code == 200
    form = response.context["add_form"]
    assert form.errors["remote_id"] == [
        f"No survey with id {MADE_UP} in your provider account."]
    page = response.content.decode()
    assert f'value="{MADE_UP}"' in page and 'value="Exit poll"' in page  # nothing typed is lost
    assert not Survey.unscoped.filter(reseller=reseller).exists()
    assert not AuditEvent.unscoped.filter(action="survey.added").exists()


@pytest.mark.django_db
def test_when_the_provider_cannot_be_asked_nothing_is_saved(member_client, unreachable):
    client, _ = member_client(Role.MANAGER, reseller=unreachable)
    response = client.post(list_url(unreachable), {"remote_id": "4242", "name": "Checkout"})
    assert response.status_code == 200
    errors = response.context["add_form"].non_field_errors()
    assert "could not be checked with the provider, so nothing was saved" in errors[0]
    assert 'value="Checkout"' in response.content.decode()
    assert not Survey.unscoped.exists()


# -- following, in the API -----------------------------------------------------------------------

def api_client(reseller, role=Role.MANAGER):
    from rest_framework.test import APIClient

    from accounts.tokens import api_token_create

    membership = MembershipFactory(reseller=reseller, role=role)
    with tenant_scope(reseller):
        _, token = api_token_create(tenant=reseller, actor=None, user=membership.user,
                                    name="t", role=role)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return api


@pytest.mark.django_db(transaction=True)
def test_the_api_follows_a_known_survey_idempotently_and_refuses_a_made_up_one(live):
    reseller, survey = live
    api = api_client(reseller)
    first = api.post(api_url(reseller), {"survey_id": survey.survey_id, "name": "Visits"},
                     HTTP_IDEMPOTENCY_KEY="k1")
    again = api.post(api_url(reseller), {"survey_id": survey.survey_id, "name": "Visits"},
                     HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 201, first.json()
    assert first.json()["survey_id"] == survey.survey_id and again.json() == first.json()
    assert first.json()["unknown_since"] is None
    assert AuditEvent.unscoped.filter(action="survey.added").count() == 1

    response = api.post(api_url(reseller), {"survey_id": MADE_UP})
    assert response.status_code == 400
    assert response.json()["fields"] == {
        "survey_id": [f"No survey with id {MADE_UP} in your provider account."]}
    assert list(Survey.unscoped.values_list("remote_id", flat=True)) == [survey.survey_id]


@pytest.mark.django_db
def test_the_api_answers_503_when_the_provider_cannot_check_the_id(unreachable):
    response = api_client(unreachable).post(api_url(unreachable), {"survey_id": 77})
    assert response.status_code == 503
    assert not Survey.unscoped.exists()


# -- unfollowing ---------------------------------------------------------------------------------

def followed_with_responses(reseller, remote_id=4242, name="Checkout", responses=3):
    survey = Survey.unscoped.create(reseller=reseller, remote_id=remote_id, name=name)
    for index in range(responses):
        SurveyResponse.unscoped.create(reseller=reseller, survey=survey,
                                       remote_id=remote_id * 10 + index)
    return survey


@pytest.mark.django_db
def test_a_manager_unfollows_a_survey_after_a_confirmation(member_client):
    client, membership = member_client(Role.MANAGER)
    reseller = membership.reseller
    survey = followed_with_responses(reseller)
    kept = followed_with_responses(reseller, remote_id=5151, name="Kept", responses=1)
    page = client.get(list_url(reseller, f"?survey={survey.remote_id}")).content.decode()
    assert unfollow_url(reseller, survey.remote_id) in page
    page = client.get(unfollow_url(reseller, survey.remote_id)).content.decode()
    assert "Unfollow Checkout (4242)?" in page
    assert "removes the 3 responses mirrored so far" in page
    assert "stays in your provider account" in page
    assert Survey.unscoped.filter(pk=survey.pk).exists()  # nothing happens before the POST

    response = client.post(unfollow_url(reseller, survey.remote_id), follow=True)
    assert response.redirect_chain[-1][0] == list_url(reseller)
    assert "Checkout (4242) is no longer followed; its 3 mirrored responses went with it." in (
        response.content.decode())
    assert list(Survey.unscoped.filter(reseller=reseller)) == [kept]
    assert SurveyResponse.unscoped.filter(reseller=reseller).count() == 1
    event = AuditEvent.unscoped.get(action="survey.removed")
    assert event.summary == {"remote_id": 4242, "name": "Checkout", "responses": 3}
    assert client.get(unfollow_url(reseller, survey.remote_id)).status_code == 404


@pytest.mark.django_db
def test_viewers_and_other_tenants_cannot_unfollow(member_client):
    client, membership = member_client(Role.VIEWER)
    survey = followed_with_responses(membership.reseller)
    page = client.get(list_url(membership.reseller)).content.decode()
    assert "Unfollow this survey" not in page
    assert client.get(unfollow_url(membership.reseller, survey.remote_id)).status_code == 403
    assert client.post(unfollow_url(membership.reseller, survey.remote_id)).status_code == 403
    other, _ = member_client(Role.OWNER)
    assert other.post(unfollow_url(membership.reseller, survey.remote_id)).status_code == 404
    assert Survey.unscoped.filter(pk=survey.pk).exists()


@pytest.mark.django_db
def test_the_api_unfollows_with_delete(api_member):
    client, membership = api_member(Role.MANAGER)
    reseller = membership.reseller
    survey = followed_with_responses(reseller)
    theirs = followed_with_responses(ResellerFactory(), remote_id=6161)
    assert client.get(api_url(reseller, survey.remote_id)).json()["name"] == "Checkout"
    assert client.delete(api_url(reseller, theirs.remote_id)).status_code == 404
    response = client.delete(api_url(reseller, survey.remote_id))
    assert response.status_code == 204
    assert not Survey.unscoped.filter(pk=survey.pk).exists()
    assert not SurveyResponse.unscoped.filter(survey_id=survey.pk).exists()
    assert client.delete(api_url(reseller, survey.remote_id)).status_code == 404
    assert Survey.unscoped.filter(pk=theirs.pk).exists()
    viewer, _ = api_member(Role.VIEWER, reseller=reseller)
    kept = followed_with_responses(reseller, remote_id=7171)
    assert viewer.delete(api_url(reseller, kept.remote_id)).status_code == 403


# -- a followed survey the provider no longer knows ----------------------------------------------

def run_sync(reseller):
    out = io.StringIO()
    call_command("sync", reseller.slug, "--json", "--only", "survey_responses", stdout=out,
                 stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.mark.django_db(transaction=True)
def test_a_survey_gone_from_the_provider_does_not_fail_every_sync(client, live):
    reseller, survey = live
    with tenant_scope(reseller):
        # Followed when it existed (or named by an event); the provider has none by this id now.
        gone = survey_add(tenant=reseller, actor=None, remote_id=MADE_UP)
        known = survey_add(tenant=reseller, actor=None, remote_id=survey.survey_id,
                           name="Visit survey")
    for _ in range(2):
        outcome = run_sync(reseller)
        assert outcome["status"] == "succeeded", outcome
    gone.refresh_from_db()
    known.refresh_from_db()
    assert gone.unknown_since is not None and known.unknown_since is None
    assert SurveyResponse.unscoped.filter(survey=known).exists()

    client = log_in(client, reseller)
    response = client.get(list_url(reseller))
    page = response.content.decode()
    assert f"The provider no longer knows survey <strong>Survey {MADE_UP} ({MADE_UP})</strong>" \
        in page
    assert unfollow_url(reseller, MADE_UP) in page
    # The survey shown first is one the provider knows, and the unknown one is marked.
    assert response.context["survey"] == known
    assert f"Survey {MADE_UP} ({MADE_UP}) – unknown to the provider" in page

    # A survey the provider knows again is no longer marked.
    Survey.unscoped.filter(pk=known.pk).update(unknown_since=gone.unknown_since)
    assert run_sync(reseller)["status"] == "succeeded"
    known.refresh_from_db()
    assert known.unknown_since is None


@pytest.mark.django_db
def test_a_viewer_is_told_a_manager_can_unfollow_an_unknown_survey(member_client):
    client, membership = member_client(Role.VIEWER)
    survey = followed_with_responses(membership.reseller)
    Survey.unscoped.filter(pk=survey.pk).update(unknown_since="2026-11-01T00:00Z")
    page = client.get(list_url(membership.reseller)).content.decode()
    assert "The provider no longer knows survey" in page
    assert "A manager can unfollow it." in page
    assert unfollow_url(membership.reseller, survey.remote_id) not in page


@pytest.mark.django_db
def test_a_survey_without_a_name_is_listed_after_the_named_ones(member_client):
    client, membership = member_client(Role.VIEWER)
    reseller = membership.reseller
    Survey.unscoped.create(reseller=reseller, remote_id=1, name="")
    named = Survey.unscoped.create(reseller=reseller, remote_id=2, name="Zebra survey")
    response = client.get(list_url(reseller))
    assert response.context["survey"] == named
    assert [s.remote_id for s in response.context["surveys"]] == [2, 1]

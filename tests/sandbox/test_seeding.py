"""The seeder: determinism per seed, idempotence per key, the command's JSON output."""

from __future__ import annotations

import datetime
import io
import json

import pytest
from django.core.management import CommandError, call_command

from sandbox import models
from sandbox.seeding import seed_partner
from tests.sandbox.conftest import LIVE_DB

pytestmark = LIVE_DB

ANCHOR = datetime.date(2025, 3, 14)


def snapshot(partner_id: int) -> dict:
    """Every seeded row of a partner, without database ids."""

    def rows(model, *fields):
        return sorted(
            json.dumps(row, sort_keys=True, default=str)
            for row in model.objects.filter(partner_id=partner_id).values(*fields)
        )

    return {
        "businesses": rows(
            models.Business,
            "number",
            "parent__number",
            "type",
            "name",
            "alias",
            "address1",
            "city",
            "state",
            "zip",
            "country_code",
            "phone",
            "status",
            "created_on",
            "created_by",
        ),
        "ancestors": rows(
            models.BusinessAncestor, "ancestor__number", "descendant__number", "depth"
        ),
        "listings": rows(models.Listing, "location__number", "payload", "fixed", "submitted_at"),
        "sites": rows(
            models.SiteStatus,
            "location__number",
            "site_id",
            "status",
            "errors",
            "url",
            "next_change_at",
            "outcome",
        ),
        "reviews": rows(models.Review, "location__number", "source", "rating", "review_date"),
        "questions": rows(models.Question, "question_id", "location__number", "text", "updated_at"),
        "answers": rows(models.Answer, "answer_id", "question__question_id", "text"),
        "responses": rows(
            models.SurveyResponse,
            "response_id",
            "survey__survey_id",
            "location__number",
            "answers",
            "response_date",
            "ticket_ids",
        ),
        "media": rows(models.MediaItem, "media_id", "location__number", "url"),
        "competitors": rows(
            models.CompetitorReview,
            "competitor__location_id",
            "competitor__brand__name",
            "source",
            "rating",
            "review_date",
        ),
        "ai": rows(models.AiSearchConfig, "business__number", "quota", "themes"),
        "subscriptions": rows(models.Subscription, "subscription_id", "event_name"),
        "fields": rows(models.CustomField, "owner__number", "field_name"),
        "hierarchy": rows(models.HierarchyMapping, "location__number", "levels"),
    }


def partner_id(summary: dict) -> int:
    return models.PartnerAccount.objects.get(account_number=summary["account_number"]).pk


def test_same_key_and_seed_give_the_same_data_and_no_duplicates(transactional_db):
    first = seed_partner(api_key="determinism", locations=20, seed=5, anchor=ANCHOR)
    before = snapshot(partner_id(first))
    counts = {model: model.objects.count() for model in (models.Business, models.Review)}
    second = seed_partner(api_key="determinism", locations=20, seed=5, anchor=ANCHOR)
    assert second == first
    assert snapshot(partner_id(second)) == before
    assert {model: model.objects.count() for model in counts} == counts
    assert models.PartnerAccount.objects.count() == 1


def test_reseeding_resets_what_the_api_changed(transactional_db):
    first = seed_partner(api_key="reset", locations=5, seed=2, anchor=ANCHOR)
    before = snapshot(partner_id(first))
    models.Question.objects.all().delete()
    models.Business.objects.filter(number=first["location_numbers"][0]).update(name="Changed")
    seed_partner(api_key="reset", locations=5, seed=2, anchor=ANCHOR)
    assert snapshot(partner_id(first)) == before


def test_another_seed_gives_other_data(transactional_db):
    first = seed_partner(api_key="other", locations=10, seed=1, anchor=ANCHOR)
    names = snapshot(partner_id(first))["businesses"]
    second = seed_partner(api_key="other", locations=10, seed=2, anchor=ANCHOR)
    assert snapshot(partner_id(second))["businesses"] != names
    assert models.Business.objects.count() == len(names)


def test_what_a_seed_contains(transactional_db):
    summary = seed_partner(api_key="contents", locations=40, seed=3)
    locations = models.Business.objects.filter(number__in=summary["location_numbers"])
    assert locations.count() == 40 and set(locations.values_list("type", flat=True)) == {"Business"}
    kinds = set(
        models.Business.objects.filter(number__in=summary["enterprise_ids"]).values_list(
            "type", flat=True
        )
    )
    assert kinds == {"Enterprise-Location", "Enterprise-Product"}
    assert len(summary["sub_reseller_ids"]) == 2
    assert set(locations.values_list("status", flat=True)) <= {"active", "demo", "inactive"}
    with_questions = locations.filter(questions__isnull=False).distinct().count()
    assert with_questions > 40 / 2
    assert len(summary["survey_ids"]) >= 2 and len(summary["subscription_ids"]) >= 2
    assert models.SurveyResponse.objects.filter(survey__survey_id__in=summary["survey_ids"])
    reviews = models.Review.objects.filter(location__in=locations)
    assert set(reviews.values_list("rating", flat=True)) == {0, 1, 2, 3, 4, 5}
    assert len(set(reviews.values_list("source", flat=True))) >= 5
    assert models.CompetitorReview.objects.exists() and models.Category.objects.exists()
    assert models.AiSearchConfig.objects.filter(business__number=summary["account_number"])


def test_zero_locations(transactional_db):
    summary = seed_partner(api_key="empty", locations=0, seed=1)
    assert summary["location_numbers"] == [] and summary["enterprise_ids"]


def test_command_prints_one_json_object(transactional_db):
    out = io.StringIO()
    call_command(
        "sandbox_seed",
        "--api-key",
        "command-key",
        "--locations",
        "3",
        "--seed",
        "9",
        "--rate-limit",
        "50/10",
        "--latency-ms",
        "5",
        "--error-rate",
        "0.1",
        stdout=out,
    )
    summary = json.loads(out.getvalue())
    assert {
        "api_key",
        "account_number",
        "enterprise_ids",
        "location_numbers",
        "survey_ids",
        "subscription_ids",
    } <= set(summary)
    assert summary["api_key"] == "command-key" and len(summary["location_numbers"]) == 3
    partner = models.PartnerAccount.objects.get(account_number=summary["account_number"])
    assert (partner.rate_limit_count, partner.rate_limit_window_seconds) == (50, 10)
    assert (partner.latency_ms, partner.error_rate) == (5, 0.1)
    assert partner.key_prefix == "com" and "command-key" not in partner.key_hash


def test_command_rejects_bad_options(transactional_db):
    for args in (["--rate-limit", "fast"], ["--error-rate", "1.5"], ["--locations", "-1"]):
        with pytest.raises(CommandError):
            call_command("sandbox_seed", "--api-key", "bad-options", *args, stdout=io.StringIO())

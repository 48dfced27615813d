"""Mirrors of the provider's review reporting: counts by rating, competitor metrics,
competitive ranking and survey responses."""

from django.db import models

from portal.models import Mirrored
from portal.tenancy import TenantOwned
from reviews_app.labels import review_source_label


class ReviewCount(Mirrored):
    """Review count by rating for one business (the account, or one location)."""

    remote_id = models.BigIntegerField(help_text="Business number the counts are for.")
    review_count = models.PositiveIntegerField(default=0)
    average_rating = models.DecimalField(max_digits=3, decimal_places=2, null=True, blank=True)
    count_by_rating = models.JSONField(default=dict, blank=True,
                                       help_text='Rating (as text) -> count, e.g. {"5": 12}.')

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="review_count_unique_remote_id")]

    def __str__(self) -> str:
        return f"{self.review_count} reviews for {self.remote_id}"


class CompetitorMetric(Mirrored):
    """One competitor's rating and review count on one source.

    The provider gives these rows no id, so `remote_id` is a digest of what identifies one:
    the competitor, its brand, the source and the account's locations it is compared with.
    """

    remote_id = models.CharField(max_length=64)
    competitor_location = models.CharField(max_length=500)
    competitor_brand = models.CharField(max_length=255, db_index=True)
    source = models.CharField(max_length=64, db_index=True)
    overall_rating = models.DecimalField(max_digits=4, decimal_places=2, null=True, blank=True)
    review_count = models.PositiveIntegerField(default=0)
    business_locations = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="competitor_metric_unique_remote_id")]
        ordering = ["competitor_brand", "competitor_location", "source"]

    def __str__(self) -> str:
        return f"{self.competitor_brand} – {self.competitor_location} ({self.source_label})"

    @property
    def source_label(self) -> str:
        return review_source_label(self.source)


class CompetitiveRanking(Mirrored):
    """The account's competitive ranking; `remote_id` is the account number."""

    remote_id = models.BigIntegerField()
    name = models.CharField(max_length=1000, blank=True)
    count = models.PositiveIntegerField(default=0)
    positive_count = models.PositiveIntegerField(default=0)
    neutral_count = models.PositiveIntegerField(default=0)
    negative_count = models.PositiveIntegerField(default=0)
    rating = models.DecimalField(max_digits=4, decimal_places=2, null=True, blank=True)
    competitors = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="competitive_ranking_unique_remote_id")]

    def __str__(self) -> str:
        return f"Ranking of {self.name}"


class Survey(TenantOwned):
    """A survey of the account whose responses the portal mirrors.

    The provider has no operation that lists surveys, so the reseller names them by id.
    """

    remote_id = models.BigIntegerField()
    name = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A survey followed once can be deleted in the provider's account later: the sync then
    # skips it (instead of failing on it every night) and the page asks to unfollow it.
    unknown_since = models.DateTimeField(
        null=True, blank=True,
        help_text="When the provider first answered that it has no such survey; empty while "
                  "it knows the survey.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="survey_unique_remote_id")]
        ordering = ["name", "remote_id"]

    def __str__(self) -> str:
        return self.name or f"Survey {self.remote_id}"


class SurveyResponse(Mirrored):
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="responses")
    remote_id = models.BigIntegerField()
    customer_id = models.BigIntegerField(null=True, blank=True)
    customer_name = models.CharField(max_length=255, blank=True)
    location_name = models.CharField(max_length=1000, blank=True)
    request_date = models.DateField(null=True, blank=True)
    response_date = models.DateField(null=True, blank=True, db_index=True)
    completed = models.BooleanField(default=False)
    ticketed = models.BooleanField(default=False)
    question_count = models.PositiveIntegerField(default=0)
    overall_score = models.CharField(max_length=32, blank=True)
    locale = models.CharField(max_length=16, blank=True)
    answers = models.JSONField(default=list, blank=True)
    ticket_ids = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="survey_response_unique_remote_id")]
        ordering = ["-response_date", "-remote_id"]

    def __str__(self) -> str:
        return f"Response {self.remote_id} to {self.survey}"

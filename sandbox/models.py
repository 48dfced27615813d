"""Rows of the embedded provider.

The sandbox plays the provider, not the portal: nothing here is tenant-scoped. Every row that
belongs to a partner account carries a direct ``partner`` foreign key, so that one account's
data can be wiped and reseeded with one DELETE per table, and so that a key can only ever reach
its own rows.
"""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q


class PartnerAccount(models.Model):
    """A partner of the provider: one API key, one business tree, its own limits and faults."""

    name = models.CharField(max_length=200)
    key_hash = models.CharField(
        max_length=64,
        unique=True,
        help_text="SHA-256 of the API key, hex. The key itself is not kept.",
    )
    key_prefix = models.CharField(
        max_length=8, help_text="First characters of the key, to recognise it."
    )
    account_number = models.BigIntegerField(
        null=True, blank=True, help_text="Business number of the account's own (reseller) business."
    )
    rate_limit_count = models.PositiveIntegerField(
        default=6000, validators=[MinValueValidator(1)], help_text="Requests allowed per window."
    )
    rate_limit_window_seconds = models.PositiveIntegerField(
        default=60, validators=[MinValueValidator(1)]
    )
    dialect = models.CharField(
        max_length=10, default="neutral", choices=[("neutral", "Neutral names"),
                                                   ("provider", "The provider's own names")],
        help_text="The names this account reads and answers on the wire (sandbox.wire).")
    latency_ms = models.PositiveIntegerField(default=0, help_text="Added to every request.")
    error_rate = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Fraction (0..1) of requests answered with HTTP 500.",
    )
    status_step_seconds = models.PositiveIntegerField(
        default=60,
        help_text="Time a listing site spends in each status after a create (0: at the next read).",
    )
    seed = models.BigIntegerField(null=True, blank=True, editable=False)
    seeded_locations = models.PositiveIntegerField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(error_rate__gte=0) & Q(error_rate__lte=1),
                name="sandbox_partner_error_rate_0_1",
            ),
            models.CheckConstraint(
                condition=Q(rate_limit_count__gte=1) & Q(rate_limit_window_seconds__gte=1),
                name="sandbox_partner_rate_limit_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}…)"


class RateLimitCounter(models.Model):
    """Requests of one partner in one fixed window; incremented by one atomic upsert."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    window_index = models.BigIntegerField()
    hits = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partner", "window_index"], name="sandbox_ratelimit_partner_window"
            )
        ]

    def __str__(self) -> str:
        return f"{self.partner_id}@{self.window_index}: {self.hits}"


class BusinessType(models.TextChoices):
    BUSINESS = "Business"
    ENTERPRISE_LOCATION = "Enterprise-Location"
    ENTERPRISE_PRODUCT = "Enterprise-Product"
    RESELLER = "Reseller"


class BusinessStatus(models.TextChoices):
    DEMO = "demo"
    ACTIVE = "active"
    INACTIVE = "inactive"


class Business(models.Model):
    """Any node of a partner's tree: reseller, sub-reseller, enterprise or location.

    ``type`` is free text because the provider also has custom hierarchy types; the choices list
    the ones the interface names. Sub-resellers have type Reseller and a parent.
    """

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE, related_name="businesses")
    number = models.BigIntegerField(unique=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    type = models.CharField(max_length=60, default=BusinessType.BUSINESS)
    name = models.CharField(max_length=1000)
    # Text without a length: a create-listing body sets these and the spec bounds none of them.
    alias = models.TextField(blank=True)
    address1 = models.TextField(blank=True)
    address2 = models.TextField(blank=True)
    sub_locality = models.TextField(blank=True)
    city = models.TextField(blank=True)
    state = models.TextField(blank=True)
    zip = models.TextField(blank=True)
    country_code = models.CharField(max_length=2, blank=True)
    phone = models.TextField(blank=True)
    website_url = models.TextField(blank=True)
    email = models.TextField(blank=True)
    status = models.CharField(
        max_length=10, choices=BusinessStatus.choices, default=BusinessStatus.ACTIVE
    )
    created_on = models.DateField()
    created_by = models.CharField(max_length=200, blank=True)
    last_updated = models.DateTimeField()

    class Meta:
        ordering = ["number"]
        verbose_name_plural = "businesses"
        indexes = [models.Index(fields=["partner", "type"], name="sandbox_bus_partner_type")]

    def __str__(self) -> str:
        return f"{self.name} ({self.number})"

    @property
    def is_location(self) -> bool:
        return self.type == BusinessType.BUSINESS


class BusinessAncestor(models.Model):
    """Closure table of the tree (a business is its own ancestor at depth 0).

    Subtree reads ("all locations under this enterprise") become one indexed join instead of
    a recursive walk, on SQLite and PostgreSQL alike.
    """

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    ancestor = models.ForeignKey(
        Business, on_delete=models.CASCADE, related_name="descendant_links"
    )
    descendant = models.ForeignKey(
        Business, on_delete=models.CASCADE, related_name="ancestor_links"
    )
    depth = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ancestor", "descendant"], name="sandbox_ancestor_pair")
        ]

    def __str__(self) -> str:
        return f"{self.ancestor_id} > {self.descendant_id}"


class Listing(models.Model):
    """The last accepted create-listing payload of a location; ``fixed`` after the first one."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.OneToOneField(Business, on_delete=models.CASCADE, related_name="listing")
    payload = models.JSONField(default=dict)
    fixed = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=0, help_text="Accepted creates so far.")
    submitted_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Listing of {self.location_id}"


class ListingSubmission(models.Model):
    """Every create-listing request for a known location, accepted or not, as it was sent."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="submissions")
    received_at = models.DateTimeField()
    body = models.TextField(help_text="The request body exactly as received.")
    accepted = models.BooleanField()
    error_code = models.IntegerField(null=True, blank=True)
    error_message = models.TextField(blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]
        indexes = [models.Index(fields=["location", "received_at"], name="sandbox_sub_loc_time")]

    def __str__(self) -> str:
        return f"Create listing for {self.location_id} at {self.received_at}"


class SiteStatus(models.Model):
    """Where one location's listing stands on one directory site."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="site_statuses")
    site_id = models.IntegerField()
    status = models.CharField(max_length=30)
    errors = models.JSONField(default=list, blank=True)
    url = models.CharField(max_length=500, blank=True)
    connected = models.BooleanField(
        default=True, help_text="False: the site needs an account connection (status Connect)."
    )
    outcome = models.CharField(max_length=30, blank=True, help_text="Planned final status.")
    outcome_errors = models.JSONField(default=list, blank=True)
    step_seconds = models.PositiveIntegerField(default=0)
    next_change_at = models.DateTimeField(null=True, blank=True)
    revision = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["location", "site_id"]
        verbose_name_plural = "site statuses"
        constraints = [
            models.UniqueConstraint(
                fields=["location", "site_id"], name="sandbox_site_per_location"
            )
        ]
        indexes = [models.Index(fields=["next_change_at"], name="sandbox_site_next_change")]

    def __str__(self) -> str:
        return f"{self.location_id} site {self.site_id}: {self.status}"


class MediaItem(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="media")
    media_id = models.CharField(max_length=40, unique=True)
    url = models.TextField()
    category = models.CharField(max_length=20)
    description = models.TextField(blank=True)
    format = models.CharField(max_length=10)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["location", "created_at"], name="sandbox_media_loc_time")]

    def __str__(self) -> str:
        return self.media_id


class CustomField(models.Model):
    """A custom field of one account; names are unique per account, ignoring case."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    owner = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="custom_fields")
    field_name = models.CharField(max_length=200)
    name_key = models.CharField(max_length=200)
    type = models.CharField(max_length=20)
    default_value = models.TextField(blank=True)
    dropdown_options = models.JSONField(default=list, blank=True)
    description = models.TextField(blank=True)
    filterable = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "name_key"], name="sandbox_custom_field_name")
        ]

    def __str__(self) -> str:
        return self.field_name


class HierarchyMapping(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.OneToOneField(Business, on_delete=models.CASCADE, related_name="hierarchy")
    levels = models.JSONField(default=dict)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"Hierarchy of {self.location_id}"


class Question(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="questions")
    question_id = models.BigIntegerField(unique=True)
    text = models.TextField()
    asked_by_owner = models.BooleanField(default=False)
    answered_by_owner = models.BooleanField(default=False)
    updated_by = models.CharField(max_length=200)
    updated_at = models.DateTimeField()
    user_profile_logo_url = models.CharField(max_length=500, blank=True)
    user_category = models.CharField(max_length=40)

    class Meta:
        indexes = [models.Index(fields=["location", "updated_at"], name="sandbox_qna_loc_time")]

    def __str__(self) -> str:
        return self.text


class Answer(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    answer_id = models.BigIntegerField(unique=True)
    text = models.TextField()
    updated_by = models.CharField(max_length=200)
    updated_at = models.DateTimeField()
    user_profile_logo_url = models.CharField(max_length=500, blank=True)
    answered_by_owner = models.BooleanField(default=False)
    user_category = models.CharField(max_length=40)

    class Meta:
        ordering = ["updated_at", "answer_id"]

    def __str__(self) -> str:
        return self.text


class Category(models.Model):
    """The provider's category catalogue: the same for every partner."""

    source = models.CharField(max_length=20)
    country_code = models.CharField(max_length=2)
    category_id = models.CharField(max_length=200)
    name = models.CharField(max_length=200)
    primary = models.BooleanField(default=False)

    class Meta:
        ordering = ["source", "country_code", "name"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(
                fields=["source", "country_code", "category_id"], name="sandbox_category_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source}/{self.country_code}: {self.name}"


class AiSearchConfig(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    business = models.OneToOneField(Business, on_delete=models.CASCADE, related_name="ai_search")
    frequency = models.CharField(max_length=40, default="Monthly")
    quota = models.IntegerField(default=0)
    billing_type = models.CharField(max_length=40, default="CREDIT_SYSTEM")
    themes = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"AI search of {self.business_id}"


class Survey(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    owner = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="surveys")
    survey_id = models.BigIntegerField(unique=True)
    name = models.CharField(max_length=200)
    locale = models.CharField(max_length=10, default="en")

    def __str__(self) -> str:
        return self.name


class SurveyResponse(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="responses")
    response_id = models.BigIntegerField(unique=True)
    location = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="+")
    customer_id = models.BigIntegerField()
    customer_name = models.CharField(max_length=200)
    request_date = models.DateTimeField()
    response_date = models.DateTimeField()
    completed = models.BooleanField(default=True)
    ticketed = models.BooleanField(default=False)
    ticket_ids = models.JSONField(default=list, blank=True)
    question_count = models.PositiveIntegerField()
    locale = models.CharField(max_length=10, default="en")
    answers = models.JSONField(default=list)
    overall_score = models.CharField(max_length=20, blank=True)
    custom_param = models.JSONField(default=dict, blank=True)
    extra_params = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["survey", "response_date"], name="sandbox_resp_survey_date")
        ]

    def __str__(self) -> str:
        return str(self.response_id)


class Review(models.Model):
    """One review of one location; count-by-rating and the ranking are computed from these."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    location = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="reviews")
    source = models.CharField(max_length=30, help_text="Lower-case source alias.")
    site_id = models.IntegerField()
    rating = models.PositiveSmallIntegerField(validators=[MaxValueValidator(5)])
    review_date = models.DateField()

    class Meta:
        indexes = [models.Index(fields=["location", "review_date"], name="sandbox_review_loc_date")]

    def __str__(self) -> str:
        return f"{self.source} {self.rating}/5 for {self.location_id}"


class CompetitorBrand(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    owner = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="competitor_brands")
    brand_id = models.BigIntegerField(unique=True)
    name = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.name


class CompetitorLocation(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    brand = models.ForeignKey(CompetitorBrand, on_delete=models.CASCADE, related_name="locations")
    location_id = models.BigIntegerField(unique=True)
    name = models.CharField(max_length=300)
    business_locations = models.ManyToManyField(
        Business, through="CompetitorLink", related_name="competitors"
    )

    def __str__(self) -> str:
        return self.name


class CompetitorLink(models.Model):
    """Which of the partner's locations a competitor location competes with."""

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    competitor = models.ForeignKey(CompetitorLocation, on_delete=models.CASCADE)
    location = models.ForeignKey(Business, on_delete=models.CASCADE)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["competitor", "location"], name="sandbox_competitor_link"
            )
        ]

    def __str__(self) -> str:
        return f"{self.competitor_id} vs {self.location_id}"


class CompetitorReview(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    competitor = models.ForeignKey(
        CompetitorLocation, on_delete=models.CASCADE, related_name="reviews"
    )
    source = models.CharField(max_length=30)
    site_id = models.IntegerField()
    rating = models.PositiveSmallIntegerField(validators=[MaxValueValidator(5)])
    review_date = models.DateField()

    class Meta:
        indexes = [
            models.Index(fields=["competitor", "review_date"], name="sandbox_comprev_comp_date")
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.rating}/5 for competitor {self.competitor_id}"


class Subscription(models.Model):
    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    account = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="subscriptions")
    subscription_id = models.CharField(max_length=64, unique=True)
    webhook_url = models.TextField()
    emails = models.JSONField(default=list, blank=True)
    event_name = models.CharField(max_length=40)
    auth = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.subscription_id


class EventDelivery(models.Model):
    """One event on its way to one subscription's webhook URL, and what became of it.

    The subscription's URL and credentials are copied at publication, so a delivery still knows
    where to go (and is shown) after an unsubscribe; the password is never shown.
    """

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    partner = models.ForeignKey(PartnerAccount, on_delete=models.CASCADE)
    subscription_id = models.CharField(max_length=64, db_index=True)
    webhook_url = models.TextField()
    auth = models.JSONField(null=True, blank=True)
    event_name = models.CharField(max_length=40)
    business_number = models.BigIntegerField()
    payload = models.JSONField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "next_attempt_at"], name="sandbox_delivery_due")]

    def __str__(self) -> str:
        return f"{self.event_name} for {self.business_number} → {self.webhook_url}"

"""One row per business and per day, and one per account and per day: the figures the mirror
held that day (the last write of the day wins), kept for `HISTORY_RETENTION_DAYS`.

A location's row holds its own figures; a reseller's or an enterprise's row holds the sums of
the locations under it, so that the trends of a subtree read one row a day whatever its size.
Review figures are those of the provider's review counts of that business (the sync's window,
`SYNC_REPORT_LOOKBACK_DAYS`); a container without counts of its own sums its locations'.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models

from portal.tenancy import TenantOwned
from provider.types import star_average

STARS = (1, 2, 3, 4, 5)


class DayFigures(TenantOwned):
    """The figures of one day, shared by a business's row and the account's."""

    # Every index of these tables starts with the reseller: one of its own would only weigh
    # (some 200 MB at 50,000 businesses over two years).
    reseller = models.ForeignKey(settings.TENANT_MODEL, on_delete=models.CASCADE,
                                 related_name="+", db_index=False)
    day = models.DateField()
    locations = models.PositiveIntegerField(default=0, help_text="Current locations counted.")
    reports = models.PositiveIntegerField(default=0,
                                          help_text="Of them, those with a status report.")
    total_sites = models.PositiveIntegerField(default=0)
    synced = models.PositiveIntegerField(default=0)
    submitted = models.PositiveIntegerField(default=0)
    need_updates = models.PositiveIntegerField(default=0, help_text="Sites needing action.")
    opted_out = models.PositiveIntegerField(default=0)
    not_connected = models.PositiveIntegerField(default=0)
    needs_action = models.PositiveIntegerField(default=0,
                                               help_text="Locations needing action.")
    # Null: no review counts that day. The total includes reviews without a rating.
    reviews = models.PositiveIntegerField(null=True, blank=True)
    rating_1 = models.PositiveIntegerField(null=True, blank=True)
    rating_2 = models.PositiveIntegerField(null=True, blank=True)
    rating_3 = models.PositiveIntegerField(null=True, blank=True)
    rating_4 = models.PositiveIntegerField(null=True, blank=True)
    rating_5 = models.PositiveIntegerField(null=True, blank=True)
    recorded_at = models.DateTimeField(help_text="When the day's figures last changed.")

    class Meta(TenantOwned.Meta):
        abstract = True

    @property
    def synced_percent(self) -> float | None:
        return round(100 * self.synced / self.total_sites, 1) if self.total_sites else None

    @property
    def by_rating(self) -> dict[int, int] | None:
        if self.reviews is None:
            return None
        return {star: getattr(self, f"rating_{star}") or 0 for star in STARS}

    @property
    def rated_and_average(self) -> tuple[int, Decimal | None]:
        """The one rule of averages (provider.types.star_average): unrated reviews are in
        neither figure."""
        by_rating = self.by_rating
        return star_average(by_rating) if by_rating is not None else (0, None)

    @property
    def average_rating(self) -> Decimal | None:
        return self.rated_and_average[1]


class BusinessDay(DayFigures):
    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE,
                                 related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "business", "day"],
                                               name="history_business_day_unique")]
        # The unique index answers a business's series; this one a day across the account
        # (the roll-up of the day's rows, and the prune).
        indexes = [models.Index(fields=["reseller", "day"], name="history_business_day_idx")]
        ordering = ["business", "day"]

    def __str__(self) -> str:
        return f"{self.business_id} on {self.day}"


class AccountDay(DayFigures):
    """The whole account's day: its locations' sums, its own review counts, and what only the
    account has (competitors, ranking, AI search, surveys); null where the mirror had none."""

    competitors = models.PositiveIntegerField(null=True, blank=True,
                                              help_text="Competitor rows (location x source).")
    competitor_rating = models.DecimalField(max_digits=4, decimal_places=2, null=True,
                                            blank=True)
    competitor_reviews = models.PositiveIntegerField(null=True, blank=True)
    ranking_rating = models.DecimalField(max_digits=4, decimal_places=2, null=True, blank=True)
    ranking_reviews = models.PositiveIntegerField(null=True, blank=True)
    ranking_positive = models.PositiveIntegerField(null=True, blank=True)
    ranking_neutral = models.PositiveIntegerField(null=True, blank=True)
    ranking_negative = models.PositiveIntegerField(null=True, blank=True)
    ai_quota = models.IntegerField(null=True, blank=True)
    ai_themes = models.PositiveIntegerField(null=True, blank=True)
    ai_prompts = models.PositiveIntegerField(null=True, blank=True)
    # Completed survey responses of the 30 days up to the day, their average overall score
    # (where it is a number) and the Net Promoter answers among them.
    survey_responses = models.PositiveIntegerField(null=True, blank=True)
    survey_score = models.DecimalField(max_digits=7, decimal_places=2, null=True, blank=True)
    nps_promoters = models.PositiveIntegerField(null=True, blank=True)
    nps_passives = models.PositiveIntegerField(null=True, blank=True)
    nps_detractors = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "day"],
                                               name="history_account_day_unique")]
        ordering = ["day"]

    def __str__(self) -> str:
        return f"Account {self.reseller_id} on {self.day}"

    @property
    def nps(self) -> int | None:
        """Promoters' share minus detractors', in points (-100 to 100)."""
        answered = sum(n or 0 for n in (self.nps_promoters, self.nps_passives,
                                        self.nps_detractors))
        if not answered:
            return None
        return round(100 * ((self.nps_promoters or 0) - (self.nps_detractors or 0)) / answered)


class DirectoryDelay(TenantOwned):
    """How long a directory site takes to publish a listing (from Submitted or In Progress to
    Synced) for one reseller: what the history learned from its sites' changes, and the
    reseller's own figure, which wins over it and over the portal's default
    (`history.delays.DEFAULT_DELAYS`). Action Required has no delay, only the grace of
    `history.delays`."""

    site_id = models.IntegerField()
    site_name = models.CharField(max_length=255, blank=True)
    # The reseller's own figures; null: not set.
    days = models.PositiveIntegerField(null=True, blank=True,
                                       help_text="Usual days from Submitted to Synced.")
    in_progress_days = models.PositiveIntegerField(
        null=True, blank=True, help_text="Usual days from In Progress to Synced, if not the same.")
    # What the history learned: the median of the site's recent waits, and how many there were.
    learned_days = models.PositiveIntegerField(null=True, blank=True)
    learned_transitions = models.PositiveIntegerField(default=0)
    learned_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "site_id"],
                                               name="history_directory_delay_unique")]
        ordering = ["site_id"]

    def __str__(self) -> str:
        return f"{self.site_name or self.site_id}: {self.days or self.learned_days} days"

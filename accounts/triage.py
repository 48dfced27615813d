"""How much work a location's listings ask of the agency, read from its mirrored status report.

The provider flags a location as soon as one of its sites needs action, so the flag alone puts
a location with 1 of 22 sites to update beside one whose listing was never published (in a
typical account nine in ten locations carry it). The tiers below rank that flag by the work
behind it; the dashboard counts them, and the businesses list filters and sorts on them.

The rules are written twice, as SQL expressions (counts, filters and sorting over 50,000
locations) and in Python (one row's label); `tests/dashboard/test_triage.py` holds them
together. Every expression takes a `prefix`: "" on status reports, "status_report__" on
businesses.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models
from django.db.models import Case, F, IntegerField, Q, Value, When
from django.db.models.functions import Coalesce

# The provider's location statuses (interface.md, location listing status report).
PUBLISHED, SCAN_STATE, DISABLED = "Published", "Scan State", "Disabled"
# A location with fewer than a quarter of its sites needing action has "a few" to update.
FEW_SITES_SHARE = 4


class Triage(models.IntegerChoices):
    """Higher is more urgent; the values order the list."""

    NONE = 0, "Nothing to do"
    INACTIVE = 1, "Inactive"
    FEW_SITES = 2, "A few sites to update"
    MANY_SITES = 3, "Many sites to fix"
    NOT_PUBLISHED = 4, "Not published"


# The `triage` parameter of the list, the export and the API: words in URLs, not numbers.
TRIAGE_PARAMS = {
    "not_published": Triage.NOT_PUBLISHED,
    "many_sites": Triage.MANY_SITES,
    "few_sites": Triage.FEW_SITES,
    "inactive": Triage.INACTIVE,
}
TRIAGE_CHOICES = [(param, tier.label) for param, tier in TRIAGE_PARAMS.items()]

EXPLANATIONS = {
    Triage.NOT_PUBLISHED: "Its listing was never published, so no site carries it yet.",
    Triage.MANY_SITES: "A quarter or more of its sites need action, or the provider reports "
                       "an error.",
    Triage.FEW_SITES: "Fewer than a quarter of its sites need action.",
    Triage.INACTIVE: "The location is inactive at the provider: nothing is sent to its sites.",
    Triage.NONE: "",
}
BADGES = {Triage.NOT_PUBLISHED: "bad", Triage.MANY_SITES: "warn", Triage.FEW_SITES: "info",
          Triage.INACTIVE: "", Triage.NONE: "ok"}


def triage_q(tier: Triage, prefix: str = "") -> Q:
    """The rows in `tier`, as a filter."""

    def q(**lookups) -> Q:
        return Q(**{prefix + name: value for name, value in lookups.items()})

    need = F(prefix + "need_updates_count")
    flagged = q(needs_action=True)
    published_or_unknown = ~q(location_status__in=[SCAN_STATE, DISABLED])
    if tier == Triage.NOT_PUBLISHED:
        return flagged & q(location_status=SCAN_STATE)
    if tier == Triage.INACTIVE:
        return flagged & q(location_status=DISABLED)
    # Flagged with no site needing action: the report carries an error, read it first.
    many = q(need_updates_count=0) | q(total_sites__lte=need * FEW_SITES_SHARE)
    if tier == Triage.MANY_SITES:
        return flagged & published_or_unknown & many
    if tier == Triage.FEW_SITES:
        return flagged & published_or_unknown & ~many
    return ~flagged


def triage_score(prefix: str = "") -> Case:
    """What the list sorts on, most work first when descending: the tier, then within it the
    number of sites late against their directory's usual delay (counted by the history on the
    report), then the number of sites needing action (a location has fewer than 1,000)."""
    return Case(
        *(When(triage_q(tier, prefix),
               then=Value(int(tier) * 1_000_000)
               + Coalesce(F(prefix + "late_sites_count"), Value(0)) * Value(1_000)
               + Coalesce(F(prefix + "need_updates_count"), Value(0)))
          for tier in (Triage.NOT_PUBLISHED, Triage.INACTIVE, Triage.MANY_SITES,
                       Triage.FEW_SITES)),
        default=Value(0), output_field=IntegerField())


def triage_of(report) -> Triage:
    """One status report's tier (NONE for no report); the rules of `triage_q`."""
    if not report or not report.needs_action:
        return Triage.NONE
    if report.location_status == SCAN_STATE:
        return Triage.NOT_PUBLISHED
    if report.location_status == DISABLED:
        return Triage.INACTIVE
    need = report.need_updates_count or 0
    if need == 0 or report.total_sites <= need * FEW_SITES_SHARE:
        return Triage.MANY_SITES
    return Triage.FEW_SITES


@dataclass(frozen=True)
class Work:
    """What a location's report asks, in words for the pages."""

    tier: Triage
    need_updates: int
    total_sites: int
    late_sites: int = 0

    @property
    def label(self) -> str:
        return self.tier.label

    @property
    def badge(self) -> str:
        return BADGES[self.tier]

    @property
    def explanation(self) -> str:
        return EXPLANATIONS[self.tier]

    @property
    def sites(self) -> str:
        """"3 of 22 sites need action"; "" when none does."""
        if not self.need_updates:
            return ""
        verb = "needs" if self.need_updates == 1 else "need"
        noun = "site" if self.total_sites == 1 else "sites"
        return f"{self.need_updates} of {self.total_sites} {noun} {verb} action"

    @property
    def late(self) -> str:
        """"2 sites late" against their directory's usual delay; "" when none is."""
        if not self.late_sites:
            return ""
        return f"{self.late_sites} site{'s' if self.late_sites != 1 else ''} late"


def listing_work(report) -> Work | None:
    """The work of one location's status report, or None without a report (a template
    reading a missing one passes "")."""
    if not report:
        return None
    return Work(tier=triage_of(report), need_updates=report.need_updates_count or 0,
                total_sites=report.total_sites or 0,
                late_sites=getattr(report, "late_sites_count", 0) or 0)

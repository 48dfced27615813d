"""The kinds of alert: what each is about, its settings and their defaults, and who follows it
by which channel unless they chose otherwise.

Every rule is on until an owner turns it off. A member's channel for a kind is their own
choice; without one, owners and managers get the portal and a daily digest by email (owners get
a rejected provider key by email at once: nothing syncs until one of them acts), viewers the
portal only.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import models

from accounts.models import Role


class Kind(models.TextChoices):
    LISTING_REJECTED = "listing_rejected", "Listing change rejected"
    SITE_LATE = "site_late", "Site late against its directory's usual delay"
    NEEDS_ACTION_RISING = "needs_action_rising", "Sites needing action rising"
    RATING_FALLING = "rating_falling", "Average rating falling"
    LOW_RATINGS_RISING = "low_ratings_rising", "One- and two-star reviews rising"
    SYNC_FAILED = "sync_failed", "Sync failed"
    KEY_REJECTED = "key_rejected", "Provider key rejected"
    EVENT_FAILED = "event_failed", "Provider event failed"


class Channel(models.TextChoices):
    OFF = "off", "Off"
    PORTAL = "portal", "In the portal only"
    EMAIL = "email", "In the portal and by email at once"
    DIGEST = "digest", "In the portal and in the daily email digest"


EMAILED = (Channel.EMAIL, Channel.DIGEST)


@dataclass(frozen=True)
class KindInfo:
    """A kind's explanation and its settings: `threshold` (a count, or days for a late site),
    `amount` (stars) and `period_days`, None where the kind has no such setting."""

    description: str
    threshold: int | None = None
    threshold_label: str = ""
    amount: Decimal | None = None
    amount_label: str = ""
    period_days: int | None = None


KINDS: dict[str, KindInfo] = {
    Kind.LISTING_REJECTED: KindInfo(
        "The provider rejected a listing change, or it could not be sent after every attempt."),
    Kind.SITE_LATE: KindInfo(
        "A directory site has held its status longer than that directory usually takes.",
        threshold=0, threshold_label="Late by at least (days)"),
    Kind.NEEDS_ACTION_RISING: KindInfo(
        "A location has more listing sites needing action than at the start of the period.",
        threshold=1, threshold_label="More sites needing action, at least", period_days=7),
    Kind.RATING_FALLING: KindInfo(
        "A location's average rating fell by more than the amount over the period.",
        amount=Decimal("0.30"), amount_label="Fall of more than (stars)", period_days=30),
    Kind.LOW_RATINGS_RISING: KindInfo(
        "A location received one- and two-star reviews over the period.",
        threshold=2, threshold_label="New one- and two-star reviews, at least", period_days=7),
    Kind.SYNC_FAILED: KindInfo("A sync stopped before it finished."),
    Kind.KEY_REJECTED: KindInfo(
        "The provider refused the account's API key: nothing syncs or is sent until an owner "
        "enters a new one."),
    Kind.EVENT_FAILED: KindInfo(
        "The portal could not act on an event the provider sent (a refresh it asked for)."),
}

# The kinds about the whole account: they reach members without a limit only.
ACCOUNT_WIDE = frozenset({Kind.KEY_REJECTED})


def default_channel(role: str, kind: str) -> str:
    if role == Role.VIEWER:
        return Channel.PORTAL
    if role == Role.OWNER and kind == Kind.KEY_REJECTED:
        return Channel.EMAIL
    return Channel.DIGEST

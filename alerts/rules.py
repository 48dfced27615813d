"""The rules evaluated over what the portal holds: the provider key's flag, the sites late
against their directory's usual delay (`history.ageing`), and a location's figures over a
period from the history (sites needing action, average rating, one- and two-star reviews).

Run after each sync run and by the schedule. Every finding names its cause, so that evaluating
again finds the same causes and raises nothing new (`alerts.services.alerts_raise`). The
figures' rules compare each location's latest recorded day with its last recorded day at or
before the start of the period, in one query per period; once a location was alerted of a kind,
it is not alerted of that kind again within the period (a rise that lasts is told once, not
every day).
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace

from django.db.models import JSONField, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import JSONObject
from django.utils import timezone

from accounts.models import Business, Reseller
from alerts.kinds import Kind
from alerts.models import Alert, AlertRule
from alerts.selectors import alert_rule_map
from alerts.services import Finding, alerts_raise, page_path
from history.ageing import late_sites
from history.models import STARS, BusinessDay
from provider.types import star_average

logger = logging.getLogger(__name__)


def alerts_evaluate(*, tenant: Reseller, today: date | None = None) -> list[Alert]:
    """Evaluate every rule that is on; returns the alerts raised now."""
    rules = alert_rule_map(tenant=tenant)
    findings: list[Finding] = []
    if rules[Kind.KEY_REJECTED].enabled:
        findings += key_rejected_findings(tenant=tenant)
    if rules[Kind.SITE_LATE].enabled:
        findings += site_late_findings(tenant=tenant, rule=rules[Kind.SITE_LATE])
    today = today or timezone.localdate()
    compared: dict[int, list] = {}  # the rules of the same period read the history once
    for kind, evaluate in ((Kind.NEEDS_ACTION_RISING, needs_action_findings),
                           (Kind.RATING_FALLING, rating_falling_findings),
                           (Kind.LOW_RATINGS_RISING, low_ratings_findings)):
        if rules[kind].enabled:
            findings += evaluate(tenant=tenant, rule=rules[kind], today=today,
                                 compared=compared)
    return alerts_raise(tenant=tenant, findings=findings, rules=rules)


# -- the provider key ---------------------------------------------------------------------------


def key_rejected_findings(*, tenant: Reseller) -> list[Finding]:
    """The reseller's key is flagged as rejected. The cause is the key itself (when it was
    entered): a flag raised again for the same key is the same cause; a new key rejected in
    its turn is a new one."""
    row = (Reseller.objects.filter(pk=tenant.pk)
           .values("status", "api_key_updated_at", "api_key_last4").first())
    if row is None or row["status"] != Reseller.Status.KEY_REJECTED:
        return []
    entered = row["api_key_updated_at"]
    cause = f"key:{entered.isoformat() if entered else 'none'}"
    return [Finding(
        kind=Kind.KEY_REJECTED, cause=cause, title="The provider rejected the API key",
        message=f"The provider refused the account's API key (ending {row['api_key_last4']}). "
                "Nothing is synced or sent until an owner enters a new key in Settings.",
        link=page_path("settings_connection", tenant.slug))]


# -- late sites ---------------------------------------------------------------------------------


def _told_sites(*, tenant: Reseller, since: datetime) -> set[tuple[int, int, datetime]]:
    """(location's id, site id, since) of the late sites told since `since`, read back from
    their alerts' data."""
    told = set()
    for business_id, site_id, at in (
            Alert.objects.filter(reseller=tenant, kind=Kind.SITE_LATE, created_at__gte=since)
            .exclude(business=None)
            .values_list("business_id", KT("data__site_id"), KT("data__since"))
            .iterator(chunk_size=5000)):
        try:
            told.add((business_id, int(site_id), datetime.fromisoformat(at)))
        except (TypeError, ValueError):
            continue  # not a site's alert as this rule writes them: its cause decides
    return told


def site_late_findings(*, tenant: Reseller, rule: AlertRule) -> list[Finding]:
    """Each site late by at least the rule's days: once per location, site and the moment it
    took its status (a site that moves on and comes back late is a new cause).

    The late sites' keys (from the index) are compared with the sites told (from their
    alerts), and only the others are read whole: evaluated after every sync, the rule reads
    two lists of keys and nothing else when nothing is new, whatever the number of late sites.
    (Asking SQL whether each late site was told is planned blind just after a first
    evaluation filled the table with thousands of alerts: a minute at 50,000 locations.)"""
    threshold = rule.threshold or 0
    findings = []
    for row in late_sites(tenant=tenant, membership=None, late_by=threshold,
                          leave_out=lambda since: _told_sites(tenant=tenant, since=since)):
        if row.late_by_days < threshold:
            continue
        business = row.business
        findings.append(Finding(
            kind=Kind.SITE_LATE,
            cause=f"site:{business.pk}:{row.site_id}:{row.since.isoformat()}",
            title=f"{row.site_name} late for {business.name}",
            message=f"{row.site_name} has shown “{row.status}” for {business.name} for "
                    f"{row.age_days} days, {row.late_by_days} days past the {row.delay_days} "
                    f"days this directory usually takes. {row.todo}",
            link=page_path("business_detail", tenant.slug, business.remote_id),
            business=business,
            data={"site_id": row.site_id, "status": row.status,
                  "since": row.since.isoformat(), "late_by_days": row.late_by_days}))
    return findings


# -- figures over a period ----------------------------------------------------------------------

BEFORE = ["need_updates", "reviews", *(f"rating_{star}" for star in STARS)]


def _compared(*, tenant: Reseller, today: date, period_days: int) -> list[SimpleNamespace]:
    """Each location's figures of `today` (`need_updates`, `reviews`, `rating_<star>`), with
    those of the last recorded day at or before the start of the period (`before_<figure>`,
    and `before_day`); `business` is set on the rows a rule keeps (`_with_businesses`).

    The earlier day's row is read once per location, as one JSON object, and compared here:
    one subquery a column read it eight times, and the rules run after every sync (at 50,000
    locations with two years of history, the three rules took 10 s; now 1 s a period)."""
    start = today - timedelta(days=period_days)
    earlier = (BusinessDay.objects.filter(reseller=tenant, business=OuterRef("business"),
                                          day__lte=start).order_by("-day")
               .values(figures=JSONObject(day="day", **{name: name for name in BEFORE}))[:1])
    rows = []
    for business_id, *figures, before in (
            BusinessDay.objects
            .filter(reseller=tenant, day=today, business__type=Business.Type.BUSINESS,
                    business__removed_at__isnull=True)
            .annotate(before=Subquery(earlier, output_field=JSONField()))
            .values_list("business_id", *BEFORE, "before").iterator(chunk_size=5000)):
        if not before:
            continue
        row = SimpleNamespace(business_id=business_id, business=None,
                              before_day=date.fromisoformat(str(before["day"])[:10]),
                              **dict(zip(BEFORE, figures, strict=True)),
                              **{f"before_{name}": before.get(name) for name in BEFORE})
        rows.append(row)
    return rows


def _with_businesses(rows: list[SimpleNamespace]) -> list[SimpleNamespace]:
    """The rows with their location (one query for all)."""
    businesses = Business.objects.in_bulk([row.business_id for row in rows])
    for row in rows:
        row.business = businesses.get(row.business_id)
    return [row for row in rows if row.business is not None]


def _recently_alerted(*, tenant: Reseller, kind: str, today: date, period_days: int) -> set:
    since = timezone.now() - timedelta(days=period_days)
    return set(Alert.objects.filter(reseller=tenant, kind=kind, created_at__gte=since)
               .exclude(business=None).values_list("business_id", flat=True))


def _days(period_days: int) -> str:
    return f"{period_days} day{'s' if period_days != 1 else ''}"


def _period_rows(*, tenant: Reseller, today: date, period_days: int,
                 compared: dict[int, list] | None) -> list[SimpleNamespace]:
    """`_compared`, read once per period when the rules share `compared` (period -> rows)."""
    if compared is None:
        return _compared(tenant=tenant, today=today, period_days=period_days)
    if period_days not in compared:
        compared[period_days] = _compared(tenant=tenant, today=today, period_days=period_days)
    return compared[period_days]


def _kept(rows: list[SimpleNamespace], keep, *, tenant: Reseller, kind: str, today: date,
          period_days: int) -> list[SimpleNamespace]:
    """The rows `keep` accepts, but for locations alerted of the kind within the period, with
    their locations."""
    rows = [row for row in rows if keep(row)]
    if not rows:
        return []
    skip = _recently_alerted(tenant=tenant, kind=kind, today=today, period_days=period_days)
    return _with_businesses([row for row in rows if row.business_id not in skip])


def needs_action_findings(*, tenant: Reseller, rule: AlertRule, today: date,
                          compared: dict[int, list] | None = None) -> list[Finding]:
    period, threshold = rule.period_days or 7, rule.threshold or 1
    rows = _kept(_period_rows(tenant=tenant, today=today, period_days=period,
                              compared=compared),
                 lambda row: (row.need_updates is not None
                              and row.before_need_updates is not None
                              and row.need_updates >= row.before_need_updates + threshold),
                 tenant=tenant, kind=Kind.NEEDS_ACTION_RISING, today=today,
                 period_days=period)
    findings = []
    for row in rows:
        name, more = row.business.name, row.need_updates - row.before_need_updates
        findings.append(Finding(
            kind=Kind.NEEDS_ACTION_RISING, cause=f"{row.business_id}:{today.isoformat()}",
            title=f"{more} more listing site{'s' if more != 1 else ''} need action at {name}",
            message=f"{row.need_updates} of {name}'s listing sites need action, against "
                    f"{row.before_need_updates} on {row.before_day:%d %b %Y} "
                    f"(over {_days(period)}). The listing status shows which.",
            link=page_path("business_detail", tenant.slug, row.business.remote_id),
            business=row.business,
            data={"now": row.need_updates, "before": row.before_need_updates,
                  "before_day": row.before_day.isoformat()}))
    return findings


def _by_rating(row, prefix: str = "") -> dict[int, int]:
    return {star: getattr(row, f"{prefix}rating_{star}") or 0 for star in STARS}


def _ratings_moved(row) -> bool:
    """Whether the row's review counts changed over the period (and it had some at both
    ends)."""
    return (row.reviews is not None and row.before_reviews is not None
            and _by_rating(row) != _by_rating(row, "before_"))


def rating_falling_findings(*, tenant: Reseller, rule: AlertRule, today: date,
                            compared: dict[int, list] | None = None) -> list[Finding]:
    period, amount = rule.period_days or 30, rule.amount or Decimal("0.30")

    def fell(row) -> bool:
        if not _ratings_moved(row):
            return False
        now = star_average(_by_rating(row))[1]
        before = star_average(_by_rating(row, "before_"))[1]
        return now is not None and before is not None and before - now > amount

    rows = _kept(_period_rows(tenant=tenant, today=today, period_days=period,
                              compared=compared), fell,
                 tenant=tenant, kind=Kind.RATING_FALLING, today=today, period_days=period)
    findings = []
    for row in rows:
        now = star_average(_by_rating(row))[1]
        before = star_average(_by_rating(row, "before_"))[1]
        name = row.business.name
        findings.append(Finding(
            kind=Kind.RATING_FALLING, cause=f"{row.business_id}:{today.isoformat()}",
            title=f"Average rating down {before - now:.2f} at {name}",
            message=f"{name}'s average rating fell from {before:.2f} to {now:.2f} stars over "
                    f"{_days(period)} (since {row.before_day:%d %b %Y}). Its reviews show "
                    "what customers said.",
            link=page_path("business_reviews", tenant.slug, row.business.remote_id),
            business=row.business,
            data={"now": str(now), "before": str(before),
                  "before_day": row.before_day.isoformat()}))
    return findings


def _low_ratings(row, prefix: str = "") -> int:
    return (getattr(row, f"{prefix}rating_1") or 0) + (getattr(row, f"{prefix}rating_2") or 0)


def low_ratings_findings(*, tenant: Reseller, rule: AlertRule, today: date,
                         compared: dict[int, list] | None = None) -> list[Finding]:
    period, threshold = rule.period_days or 7, rule.threshold or 2
    rows = _kept(_period_rows(tenant=tenant, today=today, period_days=period,
                              compared=compared),
                 lambda row: (_ratings_moved(row)
                              and _low_ratings(row) - _low_ratings(row, "before_") >= threshold),
                 tenant=tenant, kind=Kind.LOW_RATINGS_RISING, today=today, period_days=period)
    findings = []
    for row in rows:
        now, before = _low_ratings(row), _low_ratings(row, "before_")
        name, more = row.business.name, now - before
        findings.append(Finding(
            kind=Kind.LOW_RATINGS_RISING, cause=f"{row.business_id}:{today.isoformat()}",
            title=f"{more} new one- and two-star review{'s' if more != 1 else ''} at {name}",
            message=f"{name} has {now} one- and two-star reviews, against {before} on "
                    f"{row.before_day:%d %b %Y} (over {_days(period)}). Its reviews show "
                    "what customers said.",
            link=page_path("business_reviews", tenant.slug, row.business.remote_id),
            business=row.business,
            data={"now": now, "before": before, "before_day": row.before_day.isoformat()}))
    return findings

"""The demo's own writes."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from accounts.models import Reseller, SyncRun
from history.ageing import ageing_refresh
from history.delays import AGED
from history.models import AccountDay, BusinessDay
from history.services import history_day_record
from listings.models import ListingSite

STOPPED_WITH_THE_DEMO = ("Stopped with the demo before it finished. Start a sync from the "
                         "Sync page, or restart the demo.")


def demo_sync_stop(*, tenant: Reseller, run_ids: list[int]) -> int:
    """Mark the demo's foreground sync runs as failed when the demo stops during them.

    No process drives them any more; left running, they would block the next sync of the same
    resources until they go stale (SYNC_STALE_AFTER_SECONDS).
    """
    return SyncRun.unscoped.filter(
        reseller=tenant, pk__in=run_ids,
        status__in=(SyncRun.Status.QUEUED, SyncRun.Status.RUNNING),
    ).update(status=SyncRun.Status.FAILED, finished_at=timezone.now(),
             errors=[STOPPED_WITH_THE_DEMO])


# -- a past for the demo's charts ----------------------------------------------------------------

DEMO_HISTORY_DAYS = 180
# The longest a demo site has been waiting on its directory or asking for action.
DEMO_WAITING_DAYS = 45


def _earlier(value: int | None, share: float) -> int | None:
    return None if value is None else max(0, round(value * share))


def _past_figures(today: dict, *, progress: float, wobble: float) -> dict:
    """A day `progress` of the way (0 at the start, 1 today) to today's figures: sites moved
    from submitted and needing action to synced, reviews grew and the rating rose a little."""
    past = dict(today)
    synced = min(today["synced"], max(0, round(today["synced"] * (0.62 + 0.38 * progress
                                                                   + wobble))))
    moved = today["synced"] - synced
    past["synced"] = synced
    past["submitted"] = today["submitted"] + moved * 2 // 3
    past["need_updates"] = today["need_updates"] + moved - moved * 2 // 3
    if today["locations"] == 1:
        past["needs_action"] = int(bool(today["needs_action"]) or past["need_updates"] > 0)
    else:
        past["needs_action"] = min(today["reports"], today["needs_action"] + round(
            (today["reports"] - today["needs_action"]) * 0.5 * (1 - progress)))
    if today["reviews"] is not None:
        past["rating_5"] = _earlier(today["rating_5"], 0.6 + 0.4 * progress)
        for star in (1, 2, 3, 4):
            past[f"rating_{star}"] = _earlier(today[f"rating_{star}"], 0.72 + 0.28 * progress)
        rated_today = sum(today[f"rating_{star}"] or 0 for star in range(1, 6))
        past["reviews"] = (today["reviews"] - rated_today
                           + sum(past[f"rating_{star}"] or 0 for star in range(1, 6)))
    return past


FIGURE_NAMES = ["locations", "reports", "total_sites", "synced", "submitted", "need_updates",
                "opted_out", "not_connected", "needs_action", "reviews", "rating_1", "rating_2",
                "rating_3", "rating_4", "rating_5"]
ACCOUNT_NAMES = ["competitors", "competitor_rating", "competitor_reviews", "ranking_rating",
                 "ranking_reviews", "ranking_positive", "ranking_neutral", "ranking_negative",
                 "ai_quota", "ai_themes", "ai_prompts", "survey_responses", "survey_score",
                 "nps_promoters", "nps_passives", "nps_detractors"]


def demo_history_backfill(*, tenant: Reseller, days: int = DEMO_HISTORY_DAYS) -> int:
    """Give the demo a past for its trends: `days` days before today, generated from today's
    recorded figures (deterministically: the same figures give the same past), and its sites a
    past for their ages (`demo_site_ages_backfill`). Only for an account with no recorded day
    before today, so that a real history is never overwritten. Returns the rows written."""
    today = timezone.localdate()
    history_day_record(tenant=tenant, day=today)
    if (AccountDay.objects.filter(reseller=tenant, day__lt=today).exists()
            or BusinessDay.objects.filter(reseller=tenant, day__lt=today).exists()):
        return 0
    now = timezone.now()
    account = AccountDay.objects.filter(reseller=tenant, day=today).values().first()
    rows = BusinessDay.objects.filter(reseller=tenant, day=today).values(
        "business_id", *FIGURE_NAMES)
    written = 0
    batch: list = []
    for back in range(days, 0, -1):
        day = today - timedelta(days=back)
        progress = 1 - back / days
        # A small weekly swing, the same for every run.
        wobble = 0.015 * ((back * 37) % 7 - 3) / 3
        for row in rows:
            figures = _past_figures({name: row[name] for name in FIGURE_NAMES},
                                    progress=progress, wobble=wobble)
            batch.append(BusinessDay(reseller=tenant, business_id=row["business_id"], day=day,
                                     recorded_at=now, **figures))
        if account is not None:
            figures = _past_figures({name: account[name] for name in FIGURE_NAMES},
                                    progress=progress, wobble=wobble)
            extras = {name: account[name] for name in ACCOUNT_NAMES}
            for name in ("nps_promoters", "survey_responses", "competitor_reviews"):
                extras[name] = _earlier(extras[name], 0.7 + 0.3 * progress)
            batch.append(AccountDay(reseller=tenant, day=day, recorded_at=now,
                                    **figures, **extras))
        if len(batch) >= 5000:
            written += _write_days(batch)
            batch = []
    written += _write_days(batch)
    demo_site_ages_backfill(tenant=tenant, now=now)
    return written


def demo_site_ages_backfill(*, tenant: Reseller, now: datetime | None = None) -> int:
    """The demo's sites waiting on their directory or asking for action were first seen by its
    first sync, so none could be late for days: give each never seen changing a first sighting
    up to DEMO_WAITING_DAYS back (deterministically, by site), as the generated days give the
    figures a past; their due moments and the locations' counts of late sites follow. They
    still read "at least since" (no change of theirs was seen). Returns the sites moved."""
    now = now or timezone.now()
    sites = list(ListingSite.objects.filter(reseller=tenant, removed_at__isnull=True,
                                            previous_status__isnull=True, status__in=AGED)
                 .only("pk", "status_since"))
    for site in sites:
        site.status_since = now - timedelta(days=site.pk * 7 % DEMO_WAITING_DAYS,
                                            hours=site.pk % 24)
    ListingSite.objects.bulk_update(sites, ["status_since"], batch_size=500)
    ageing_refresh(tenant=tenant)
    return len(sites)


def _write_days(rows: list) -> int:
    for model in (BusinessDay, AccountDay):
        model.objects.bulk_create([row for row in rows if isinstance(row, model)],
                                  ignore_conflicts=True, batch_size=5000)
    return len(rows)

"""Each directory's usual delay, and the moment each site becomes late against it.

A site Submitted or In Progress is waiting on the directory; how long that means anything
depends on the directory (days for the largest, weeks for the long tail). Each site's usual
delay is, first, the reseller's own figure; else what the history learned from the reseller's
own sites (the median wait from Submitted or In Progress to Synced, once at least
`LEARN_MIN_TRANSITIONS` such waits were seen in the last `LEARN_WINDOW_DAYS`); else the
portal's default below. A site asking for action (Action Required) is work for the agency: it
is late once older than `ACTION_REQUIRED_GRACE_DAYS`.

Each site keeps the moment it becomes late, `ListingSite.due_at` (since + the delay of its site
and status; empty for a site neither waiting nor asking for action), so that the late sites are
one range of an index, in the order of lateness. The mirror clears it when a site's status
changes, in the upsert that writes the status; `sites_due_refresh` writes it again: for the
sites without one at the end of every sync run (`missing_only`: a new status is due a day from
now at the soonest, so the list is exact meanwhile and the sync pays no statement per chunk),
for a directory whose delay the reseller set (`directory_delay_set`) or whose learned delay
moved (`delays_learn`), and for every site of the account each evening
(`history.ageing.ageing_refresh`), which also brings them in line with new defaults after an
upgrade.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Case, DateTimeField, F, OuterRef, Q, Subquery, Value, When
from django.utils import timezone

from accounts.filtersets import BIGINT_MAX
from accounts.models import Reseller
from accounts.services import audit_record
from history.models import DirectoryDelay
from listings.models import ListingSite, SiteStatusChange

SYNCED = "Synced"
SUBMITTED = "Submitted"
IN_PROGRESS = "In Progress"
ACTION_REQUIRED = "Action Required"
WAITING = (SUBMITTED, IN_PROGRESS)
AGED = (*WAITING, ACTION_REQUIRED)

# A site asking for action is the agency's to fix; a few days let the team get to it first.
ACTION_REQUIRED_GRACE_DAYS = 3
LEARN_MIN_TRANSITIONS = 20
LEARN_WINDOW_DAYS = 180
MAX_DELAY_DAYS = 365


@dataclass(frozen=True)
class DefaultDelay:
    site_id: int
    name: str
    days: int


# The directory sites the provider's status report lists, with the portal's defaults: the
# largest publish within days, the long tail takes weeks. See docs/history.md.
DEFAULT_DELAYS: dict[int, DefaultDelay] = {d.site_id: d for d in (
    DefaultDelay(2, "Profile Platform", 3),
    DefaultDelay(110, "Social Network", 3),
    DefaultDelay(226, "Search Engine", 5),
    DefaultDelay(100, "Provider Listings", 2),
    DefaultDelay(381, "Device Maps", 7),
    DefaultDelay(142, "CityScout", 14),
    DefaultDelay(143, "LocalPages", 14),
    DefaultDelay(144, "TownGuide", 21),
    DefaultDelay(145, "BizFinder", 14),
    DefaultDelay(146, "NearbyNow", 21),
    DefaultDelay(147, "ShopLocal Directory", 21),
    DefaultDelay(148, "MainStreet Index", 21),
    DefaultDelay(149, "OpenCity List", 21),
    DefaultDelay(150, "Neighbourly", 21),
    DefaultDelay(151, "Chamber Finder", 28),
    DefaultDelay(152, "Yellow Ledger", 21),
    DefaultDelay(153, "Route Atlas", 28),
    DefaultDelay(154, "Spotlight Local", 21),
    DefaultDelay(155, "Trusted Trades", 28),
    DefaultDelay(156, "Hometown Hub", 28),
    DefaultDelay(157, "Pinpoint Places", 28),
    DefaultDelay(158, "Civic Listings", 35),
)}
# A site the table does not know: the long tail's pace.
UNKNOWN_SITE_DAYS = 21

SOURCE_OWN, SOURCE_LEARNED, SOURCE_DEFAULT, SOURCE_GRACE = "own", "learned", "default", "grace"
SOURCE_LABELS = {SOURCE_OWN: "Your setting", SOURCE_LEARNED: "Learned from your sites",
                 SOURCE_DEFAULT: "Portal default", SOURCE_GRACE: "Grace to act"}


@dataclass(frozen=True)
class Delay:
    """One directory site's usual delay for a reseller, and where each figure comes from."""

    site_id: int
    site_name: str
    default_days: int
    learned_days: int | None = None
    learned_transitions: int = 0
    own_days: int | None = None
    own_in_progress_days: int | None = None

    @property
    def learned_applies(self) -> bool:
        return self.learned_days is not None and self.learned_transitions >= LEARN_MIN_TRANSITIONS

    @property
    def source(self) -> str:
        if self.own_days is not None:
            return SOURCE_OWN
        return SOURCE_LEARNED if self.learned_applies else SOURCE_DEFAULT

    @property
    def source_label(self) -> str:
        return SOURCE_LABELS[self.source]

    @property
    def days(self) -> int:
        """The effective delay from Submitted (and from In Progress unless set apart)."""
        if self.own_days is not None:
            return self.own_days
        return self.learned_days if self.learned_applies else self.default_days

    def days_for(self, status: str) -> tuple[int, str]:
        """(days, source) for a site holding `status`."""
        if status == ACTION_REQUIRED:
            return ACTION_REQUIRED_GRACE_DAYS, SOURCE_GRACE
        if status == IN_PROGRESS and self.own_in_progress_days is not None:
            return self.own_in_progress_days, SOURCE_OWN
        return self.days, self.source


def delay_of_unknown_site(site_id: int, site_name: str) -> Delay:
    """The delay of a site neither the defaults nor the reseller's rows know."""
    return Delay(site_id=site_id, site_name=site_name, default_days=UNKNOWN_SITE_DAYS)


def directory_delays(*, tenant: Reseller) -> list[Delay]:
    """Every directory site's delay for the reseller: the defaults' sites, then any other the
    reseller set or the history learned, by name (one query)."""
    return delays_of_rows(DirectoryDelay.objects.filter(reseller=tenant))


def delays_of_rows(rows: Iterable[DirectoryDelay]) -> list[Delay]:
    """The delays of a reseller's DirectoryDelay rows (or of their migration-time copies)."""
    rows = {row.site_id: row for row in rows}
    delays = []
    for site_id in [*DEFAULT_DELAYS, *sorted(set(rows) - set(DEFAULT_DELAYS))]:
        default = DEFAULT_DELAYS.get(site_id)
        row = rows.get(site_id)
        delays.append(Delay(
            site_id=site_id,
            site_name=(default.name if default else "") or (row.site_name if row else "")
            or f"Site {site_id}",
            default_days=default.days if default else UNKNOWN_SITE_DAYS,
            learned_days=row.learned_days if row else None,
            learned_transitions=row.learned_transitions if row else 0,
            own_days=row.days if row else None,
            own_in_progress_days=row.in_progress_days if row else None))
    return sorted(delays, key=lambda d: (d.site_name.lower(), d.site_id))


def directory_delay_set(*, tenant: Reseller, actor, site_id: int, days: int | None,
                        in_progress_days: int | None = None) -> Delay:
    """Set (or with `days` None, clear) the reseller's own delay of a site, and move the due
    moment of that site at every location with it; audited."""
    if not isinstance(site_id, int) or site_id < 1 or site_id > BIGINT_MAX:
        raise ValidationError({"site_id": "Give the id of a directory site."})
    for name, value in (("days", days), ("in_progress_days", in_progress_days)):
        if value is not None and not 1 <= value <= MAX_DELAY_DAYS:
            raise ValidationError({name: f"A delay is from 1 to {MAX_DELAY_DAYS} days."})
    if days is None and in_progress_days is not None:
        raise ValidationError({"days": "Set the delay from Submitted before the one from "
                                       "In Progress."})
    known = DEFAULT_DELAYS.get(site_id)
    with transaction.atomic():
        row = (DirectoryDelay.objects.select_for_update()
               .filter(reseller=tenant, site_id=site_id).first())
        if row is None and known is None:
            seen = (ListingSite.objects.filter(reseller=tenant, site_id=site_id)
                    .values_list("site_name", flat=True).first())
            if seen is None:
                raise ValidationError({"site_id": f"No directory site {site_id} is known to "
                                                  "this account."})
        before = (row.days, row.in_progress_days) if row else (None, None)
        if row is None:
            row = DirectoryDelay(reseller=tenant, site_id=site_id,
                                 site_name=known.name if known else seen)
        row.days, row.in_progress_days = days, in_progress_days
        row.save()
        delays = directory_delays(tenant=tenant)
        if before != (days, in_progress_days):
            sites_due_refresh(tenant=tenant, delays=delays, site_ids=[site_id])
            audit_record(tenant=tenant, actor=actor, action="directory_delay.set", obj=row,
                         summary={"site_id": site_id, "site_name": row.site_name,
                                  "days": [before[0], days],
                                  "in_progress_days": [before[1], in_progress_days]})
    return next(d for d in delays if d.site_id == site_id)


def delays_learn(*, tenant: Reseller, now: datetime | None = None) -> int:
    """Each site's median wait from Submitted or In Progress to Synced over the reseller's
    changes of the last LEARN_WINDOW_DAYS (the wait starts at the change into a waiting status
    that began the run, so Submitted then In Progress counts once, whole). Stored on the site's
    DirectoryDelay row, and the due moments of the sites whose delay it moved follow; returns
    how many sites have a figure."""
    now = now or timezone.now()
    changes = SiteStatusChange.objects.filter(reseller=tenant)
    started = (changes.filter(business_id=OuterRef("business_id"), site_id=OuterRef("site_id"),
                              at__lt=OuterRef("at"), to_status__in=WAITING)
               .exclude(from_status__in=WAITING).order_by("-at").values("at")[:1])
    waits: dict[int, list[float]] = {}
    names: dict[int, str] = {}
    for site_id, site_name, at, began in (
            changes.filter(at__gte=now - timedelta(days=LEARN_WINDOW_DAYS), to_status=SYNCED,
                           from_status__in=WAITING)
            .annotate(began=Subquery(started, output_field=DateTimeField()))
            .filter(began__isnull=False).order_by()
            .values_list("site_id", "site_name", "at", "began").iterator(chunk_size=2000)):
        waits.setdefault(site_id, []).append((at - began).total_seconds() / 86400)
        names[site_id] = site_name
    with transaction.atomic():
        before = {delay.site_id: delay.days for delay in directory_delays(tenant=tenant)}
        rows = {row.site_id: row for row in
                DirectoryDelay.objects.select_for_update().filter(reseller=tenant)}
        new, changed = [], []
        for site_id in set(waits) | set(rows):
            found = waits.get(site_id, [])
            days = max(1, math.ceil(median(found))) if found else None
            row = rows.get(site_id)
            if row is None:
                default = DEFAULT_DELAYS.get(site_id)
                new.append(DirectoryDelay(
                    reseller=tenant, site_id=site_id,
                    site_name=default.name if default else names.get(site_id, ""),
                    learned_days=days, learned_transitions=len(found), learned_at=now))
            elif (row.learned_days, row.learned_transitions) != (days, len(found)):
                row.learned_days, row.learned_transitions, row.learned_at = days, len(found), now
                changed.append(row)
        DirectoryDelay.objects.bulk_create(new)
        DirectoryDelay.objects.bulk_update(changed, ["learned_days", "learned_transitions",
                                                     "learned_at"])
        if new or changed:
            delays = directory_delays(tenant=tenant)
            moved = [delay.site_id for delay in delays
                     if delay.days != before.get(delay.site_id, UNKNOWN_SITE_DAYS)]
            if moved:
                sites_due_refresh(tenant=tenant, delays=delays, site_ids=moved)
    return len(waits)


# -- the moment each site becomes late ----------------------------------------------------------


def due_at_of(delays: Iterable[Delay]) -> Case:
    """When a site becomes late, as an SQL expression of its row: since + the delay of its
    site and status; empty for a site neither waiting nor asking for action. The directories
    that share a delay share a branch."""
    since = F("status_since")

    def after(days: int):
        return since + Value(timedelta(days=days))

    whens = [When(~Q(status__in=AGED) | Q(status_since__isnull=True), then=Value(None)),
             When(status=ACTION_REQUIRED, then=after(ACTION_REQUIRED_GRACE_DAYS))]
    sharing: dict[int, list[int]] = {}
    for delay in delays:
        if delay.own_in_progress_days is not None:
            whens.append(When(site_id=delay.site_id, status=IN_PROGRESS,
                              then=after(delay.own_in_progress_days)))
        sharing.setdefault(delay.days, []).append(delay.site_id)
    whens += [When(site_id__in=sites, then=after(days)) for days, sites in sharing.items()]
    return Case(*whens, default=after(UNKNOWN_SITE_DAYS), output_field=DateTimeField())


def sites_due_refresh(*, tenant: Reseller, delays: list[Delay] | None = None,
                      site_ids: Collection[int] | None = None,
                      missing_only: bool = False) -> int:
    """Write `due_at` where it is not what the site's status and delay make it: the sites of
    the directories `site_ids`, or of the whole account; with `missing_only`, only the current
    sites waiting or asking for action that have none (the mirror cleared it: one range of the
    due moments' index). One UPDATE, which writes only the rows that differ (after reading the
    delays, unless given); returns how many it wrote."""
    delays = directory_delays(tenant=tenant) if delays is None else delays
    due = due_at_of(delays)
    sites = ListingSite.objects.filter(reseller=tenant)
    if site_ids is not None:
        sites = sites.filter(site_id__in=site_ids)
    if missing_only:
        return sites.filter(removed_at__isnull=True, status__in=AGED, due_at__isnull=True,
                            status_since__isnull=False).update(due_at=due)
    aged = Q(status__in=AGED, status_since__isnull=False)
    stale = (aged & (Q(due_at__isnull=True) | ~Q(due_at=due))) | (~aged & Q(due_at__isnull=False))
    return sites.filter(stale).update(due_at=due)

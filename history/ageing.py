"""Ageing of each directory site against that directory's usual delay.

A site Submitted or In Progress is waiting on the directory; how long that means anything
depends on the directory (days for the largest, weeks for the long tail). Each site's usual
delay is, first, the reseller's own figure; else what the history learned from the reseller's
own sites (the median wait from Submitted or In Progress to Synced, once at least
`LEARN_MIN_TRANSITIONS` such waits were seen in the last `LEARN_WINDOW_DAYS`); else the
portal's default below. A site waiting longer than that is late. A site asking for action
(Action Required) is work for the agency: it is late once older than `ACTION_REQUIRED_GRACE`.

Reads: `directory_delays` (the table of every site, with the source of its figure) and
`late_sites` (the late sites, filtered and sorted in SQL). Writes: `directory_delay_set` (the
reseller's figure), and `ageing_refresh` (what the history learns and each location's count of
late sites, which the needs-action ranking reads), run when the history records.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import (
    Case,
    Count,
    DateTimeField,
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Upper
from django.utils import timezone

from accounts.filtersets import BIGINT_MAX, search_words
from accounts.models import Business, Membership, Reseller
from accounts.services import audit_record
from history.models import DirectoryDelay
from listings.models import ListingSite, ListingStatusReport, SiteStatusChange

logger = logging.getLogger(__name__)

SYNCED = "Synced"
SUBMITTED = "Submitted"
IN_PROGRESS = "In Progress"
ACTION_REQUIRED = "Action Required"
WAITING = (SUBMITTED, IN_PROGRESS)
AGED = (*WAITING, ACTION_REQUIRED)
# The `status` filter's words (URLs carry words, not the provider's spelling).
STATUS_PARAMS = {"submitted": SUBMITTED, "in_progress": IN_PROGRESS,
                 "action_required": ACTION_REQUIRED}

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


def duration_words(days: float) -> str:
    """"3 days", "2 weeks", "4 months"; "less than a day"."""
    if days < 1:
        return "less than a day"
    if days < 14:
        n = int(days)
        return f"{n} day{'s' if n != 1 else ''}"
    if days < 60:
        n = int(days // 7)
        return f"{n} weeks"
    n = int(days // 30)
    return f"{n} months"


# -- the table of delays ------------------------------------------------------------------------


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


def directory_delays(*, tenant: Reseller) -> list[Delay]:
    """Every directory site's delay for the reseller: the defaults' sites, then any other the
    reseller set or the history learned, by name (one query)."""
    rows = {row.site_id: row for row in DirectoryDelay.objects.filter(reseller=tenant)}
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
    """Set (or with `days` None, clear) the reseller's own delay of a site; audited."""
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
        if before != (days, in_progress_days):
            audit_record(tenant=tenant, actor=actor, action="directory_delay.set", obj=row,
                         summary={"site_id": site_id, "site_name": row.site_name,
                                  "days": [before[0], days],
                                  "in_progress_days": [before[1], in_progress_days]})
    return next(d for d in directory_delays(tenant=tenant) if d.site_id == site_id)


# -- late sites ---------------------------------------------------------------------------------


def _due_at(delays: Iterable[Delay]) -> Case:
    """When each aged site becomes late: since + its delay (by site and status)."""
    since = F("status_since")
    whens = [When(status=ACTION_REQUIRED,
                  then=since + Value(timedelta(days=ACTION_REQUIRED_GRACE_DAYS)))]
    for delay in delays:
        if delay.own_in_progress_days is not None:
            whens.append(When(site_id=delay.site_id, status=IN_PROGRESS,
                              then=since + Value(timedelta(days=delay.own_in_progress_days))))
        whens.append(When(site_id=delay.site_id, then=since + Value(timedelta(days=delay.days))))
    return Case(*whens, default=since + Value(timedelta(days=UNKNOWN_SITE_DAYS)),
                output_field=DateTimeField())


SORTS = {
    # Most late first is the earliest due; the oldest is the earliest since.
    "late_by": (F("due_at").desc(), ), "-late_by": (F("due_at").asc(), ),
    "age": (F("status_since").desc(), ), "-age": (F("status_since").asc(), ),
    "site": (F("site_name").asc(), F("due_at").asc()),
    "-site": (F("site_name").desc(), F("due_at").asc()),
    "location": (F("business__name").asc(), F("due_at").asc()),
    "-location": (F("business__name").desc(), F("due_at").asc()),
}
SORT_CHOICES = [("-late_by", "Most late first"), ("late_by", "Least late first"),
                ("-age", "Oldest first"), ("age", "Newest first"), ("site", "Site"),
                ("-site", "Site, Z to A"), ("location", "Location"),
                ("-location", "Location, Z to A")]
DEFAULT_SORT = "-late_by"


# The sorts of the late sites' keys (`_late_keys`): the same orders by the names its rows carry
# (sorting by location reads the locations, in one query: see `late_sites`).
KEY_SORTS = {
    "late_by": ("-due_at",), "-late_by": ("due_at",), "age": ("-status_since",),
    "-age": ("status_since",), "site": ("site_name", "due_at"),
    "-site": ("-site_name", "due_at"),
}


@dataclass(frozen=True)
class _Range:
    """The late sites one range of the aged-sites index answers (ListingSite's
    `listing_site_aged_idx` on reseller, status, site_id, status_since): the sites of
    `statuses` and of `sites` (None: of any site but `other_than`) holding their status for
    longer than `days`. Their due moment is since + `days`, the same for the whole range."""

    statuses: tuple[str, ...]
    days: int
    sites: tuple[int, ...] | None = None
    other_than: tuple[int, ...] = ()

    def q(self, now: datetime) -> Q:
        late = Q(status__in=self.statuses, status_since__lt=now - timedelta(days=self.days))
        if self.sites is not None:
            late &= Q(site_id__in=self.sites)
        if self.other_than:
            late &= ~Q(site_id__in=self.other_than)
        return late

    def narrowed(self, *, site_id: int | None, status: str | None) -> _Range | None:
        """The range within one site and one status (None: the range finds none of them)."""
        statuses = self.statuses if status is None else tuple(
            s for s in self.statuses if s == status)
        if not statuses:
            return None
        if site_id is None:
            return _Range(statuses, self.days, self.sites, self.other_than)
        if (self.sites is not None and site_id not in self.sites) or site_id in self.other_than:
            return None
        return _Range(statuses, self.days, (site_id,))


def _late_ranges(delays: Iterable[Delay]) -> list[_Range]:
    """Late, as `_due_at` < now, cut into ranges of `status_since`: asking for action past the
    grace, then each status and usual delay with the directories that share it, then the
    directories the table does not know. Only the late sites are read, not every site waiting
    (at 50,000 locations, 30,000 late among 115,000 waiting), in nine ranges with the
    defaults."""
    ranges = [_Range((ACTION_REQUIRED,), ACTION_REQUIRED_GRACE_DAYS)]
    shared: dict[tuple[tuple[str, ...], int], list[int]] = {}
    for delay in delays:
        if delay.own_in_progress_days is not None:
            shared.setdefault(((SUBMITTED,), delay.days), []).append(delay.site_id)
            shared.setdefault(((IN_PROGRESS,), delay.own_in_progress_days),
                              []).append(delay.site_id)
        else:
            shared.setdefault((WAITING, delay.days), []).append(delay.site_id)
    ranges += [_Range(statuses, days, tuple(sites))
               for (statuses, days), sites in shared.items()]
    ranges.append(_Range(WAITING, UNKNOWN_SITE_DAYS,
                         other_than=tuple(delay.site_id for delay in delays)))
    return ranges


def _late_q(ranges: list[_Range], now: datetime) -> Q:
    """In one of the ranges (none: nothing is late)."""
    if not ranges:
        return Q(pk__in=[])
    late = ranges[0].q(now)
    for late_range in ranges[1:]:
        late |= late_range.q(now)
    return late


def _aged_sites(*, tenant: Reseller, membership: Membership | None) -> QuerySet:
    """The current sites waiting or asking for action of the current locations the member
    may see."""
    sites = ListingSite.objects.filter(reseller=tenant, removed_at__isnull=True,
                                       status__in=AGED)
    # The few removed locations are left out by their ids (one small hashed subquery) rather
    # than by joining every late site to its location: the count then reads the index alone.
    sites = sites.exclude(business__in=Business.objects.filter(
        reseller=tenant, removed_at__isnull=False).values("pk"))
    if membership is not None and membership.limited_to_id is not None:
        sites = sites.filter(membership.limited_to.subtree_q(prefix="business__"))
    return sites


def late_site_rows(*, tenant: Reseller, membership: Membership | None = None,
                   delays: list[Delay] | None = None, now: datetime | None = None) -> QuerySet:
    """The late sites as a queryset of ListingSite rows annotated with `due_at` (in no order):
    current sites of current locations the member may see, waiting past their directory's
    delay or asking for action past the grace."""
    now = now or timezone.now()
    delays = directory_delays(tenant=tenant) if delays is None else delays
    return (_aged_sites(tenant=tenant, membership=membership)
            .filter(_late_q(_late_ranges(delays), now))
            .annotate(due_at=_due_at(delays)).order_by())


@dataclass(frozen=True)
class LateSite:
    """One late site of a location, in words for the pages, the API and the alerts."""

    business: Business
    site_id: int
    site_name: str
    status: str
    since: datetime
    since_is_lower_bound: bool  # never seen changing: its status is at least this old
    age_days: int
    delay_days: int
    delay_source: str
    late_by_days: int
    errors: list
    url: str

    @property
    def delay_source_label(self) -> str:
        return SOURCE_LABELS[self.delay_source]

    @property
    def age_words(self) -> str:
        words = duration_words(self.age_days)
        return f"at least {words}" if self.since_is_lower_bound else words

    @property
    def late_by_words(self) -> str:
        return duration_words(self.late_by_days)

    @property
    def todo(self) -> str:
        """What to do, in words."""
        if self.status == ACTION_REQUIRED:
            what = "; ".join(str(e) for e in self.errors if e) or "see its listing status"
            return (f"{self.site_name} asks for a change ({what}) for {self.age_words}: fix it "
                    "in the listing editor and send the listing again.")
        return (f"Waiting on {self.site_name} for {self.age_words}; it usually takes "
                f"{duration_words(self.delay_days)}: check the listing's details on the site, "
                "or ask the provider's support.")


ROWS_BATCH = 500


def _rows_by_id(ids: list[int]) -> QuerySet | list:
    """The sites of these ids still waiting or asking for action, with their locations."""
    if not ids:
        return []
    return (ListingSite.objects.filter(pk__in=ids, removed_at__isnull=True, status__in=AGED)
            .select_related("business").defer("raw", "business__raw"))


class LateSites:
    """The late sites, filtered and sorted in SQL, read a page at a time: a sequence of
    `LateSite` that Django's paginator and the API's pagination slice and count.

    `queryset` holds them in order (or is a function that makes it, called when first needed:
    building it costs more than counting). With `keys` (a union of one query per range of the
    aged-sites index, of the rows' ids and what they sort on), the count and the page's ids
    are read from the index alone, then the page's rows by their ids; iterating reads
    `queryset` in any case."""

    def __init__(self, queryset: QuerySet | Callable[[], QuerySet], delays: dict[int, Delay],
                 now: datetime, keys: QuerySet | None = None,
                 identities: QuerySet | None = None):
        self._queryset = queryset
        self.delays = delays
        self.now = now
        self.keys = keys
        self._identities = identities

    @property
    def queryset(self) -> QuerySet:
        if callable(self._queryset):
            self._queryset = self._queryset()
        return self._queryset

    def count(self) -> int:
        return (self.queryset if self.keys is None else self.keys).count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        if self.keys is None:
            if isinstance(index, slice):
                return [self._row(site) for site in self.queryset[index]]
            return self._row(self.queryset[index])
        if not isinstance(index, slice):
            found = self[index:index + 1]
            if not found:
                raise IndexError(index)
            return found[0]
        ids = [key[0] for key in self.keys[index]]
        sites = {site.pk: site for site in _rows_by_id(ids)}
        # A site that moved on between the two reads is left out of the page.
        return [self._row(sites[pk]) for pk in ids if pk in sites]

    def __iter__(self):
        return (self._row(site) for site in self.queryset.iterator(chunk_size=500))

    def only(self, ids: list[int]) -> LateSites:
        """These of the late sites (ids), in no order: counted by their number, read 500 a
        query."""
        return _LateSitesOf(self._queryset, self.delays, self.now, ids=ids)

    def identities(self) -> list[tuple[int, int, int, datetime]]:
        """(id, location's id, site id, since) of every late site, in no order: from the index
        alone when the ranges are known, what the alerts compare with the sites told."""
        rows = (self._identities if self._identities is not None else
                self.queryset.order_by().values_list("pk", "business_id", "site_id",
                                                      "status_since"))
        return list(rows)

    def of(self, ids: list[int]) -> Iterator[LateSite]:
        """The late sites of these ids, in no order (a query for each 500)."""
        for start in range(0, len(ids), ROWS_BATCH):
            yield from (self._row(site) for site in _rows_by_id(ids[start:start + ROWS_BATCH]))

    def _row(self, site: ListingSite) -> LateSite:
        delay = self.delays.get(site.site_id) or Delay(
            site_id=site.site_id, site_name=site.site_name, default_days=UNKNOWN_SITE_DAYS)
        delay_days, source = delay.days_for(site.status)
        age = self.now - site.status_since
        late_by = age - timedelta(days=delay_days)
        return LateSite(
            business=site.business, site_id=site.site_id, site_name=site.site_name,
            status=site.status, since=site.status_since,
            since_is_lower_bound=site.previous_status is None,
            age_days=age.days, delay_days=delay_days, delay_source=source,
            late_by_days=max(0, late_by.days), errors=site.errors or [], url=site.url)


class _LateSitesOf(LateSites):
    """Some of the late sites, by id (`LateSites.only`)."""

    def __init__(self, queryset, delays: dict[int, Delay], now: datetime, ids: list[int]):
        super().__init__(queryset, delays, now)
        self.ids = ids

    def count(self) -> int:
        return len(self.ids)

    def __getitem__(self, index):
        if isinstance(index, slice):
            ids = self.ids[index]
            sites = {site.pk: site for site in _rows_by_id(ids)}
            return [self._row(sites[pk]) for pk in ids if pk in sites]
        return self[index:index + 1][0]

    def __iter__(self):
        return self.of(self.ids)


def late_sites(*, tenant: Reseller, membership: Membership | None = None,
               site_id: int | None = None, status: str | None = None,
               within: int | None = None, search: str = "", sort: str = DEFAULT_SORT,
               late_by: int = 0,
               leave_out: Callable[[datetime], Collection[tuple[int, int, datetime]]]
               | None = None,
               now: datetime | None = None) -> LateSites:
    """The sites late against their directory's usual delay that the member may see, most
    late first by default. `status` is a word of STATUS_PARAMS; `within` the business number
    of a reseller or an enterprise (among what the member may see: another finds nothing);
    `search` words of the location's name, alias, city, state, postal code or number;
    `late_by` the days a site must be late by at least. `leave_out` is asked, with the oldest
    since among the late sites, for the (location's id, site id, since) of those to leave out
    (the alerts leave out the sites told): the sites are compared by these keys, read from the
    index, and only the others are read whole."""
    now = now or timezone.now()
    delays = directory_delays(tenant=tenant)
    sites = _aged_sites(tenant=tenant, membership=membership)
    if within is not None:
        node = Business.objects.filter(reseller=tenant, remote_id=within,
                                       removed_at__isnull=True)
        if membership is not None and membership.limited_to_id is not None:
            node = node.filter(membership.limited_to.subtree_q())
        path = node.values_list("tree_path", flat=True).first()
        sites = (sites.filter(business__tree_path__startswith=path)
                 .exclude(business__tree_path=path) if path is not None else sites.none())
    match = Q()
    for word in search_words(search):
        found = Q(business__search_text__contains=Upper(Value(word)))
        if word.isdigit() and int(word) <= BIGINT_MAX:
            found |= Q(business__remote_id=int(word))
        match &= found
    if match:
        sites = sites.filter(match)
    if site_id is not None:
        sites = sites.filter(site_id=site_id)
    if status:
        sites = sites.filter(status=STATUS_PARAMS[status])
    ranges = [narrowed for late_range in _late_ranges(delays)
              if (narrowed := late_range.narrowed(
                  site_id=site_id, status=STATUS_PARAMS[status] if status else None))]
    # Late by at least `late_by` days: due at least that long ago.
    late_now = now - timedelta(days=late_by) if late_by else now
    subtree = within is not None or (membership is not None
                                     and membership.limited_to_id is not None)

    def rows() -> QuerySet:
        annotated = sites.annotate(due_at=_due_at(delays))
        # A subtree is walked from its locations (their sites, then the delay of each);
        # the account from the ranges of the aged-sites index, which read the late sites only.
        late = (annotated.filter(due_at__lt=late_now) if subtree
                else annotated.filter(_late_q(ranges, late_now)))
        return (late.select_related("business").defer("raw", "business__raw")
                .order_by(*SORTS.get(sort, SORTS[DEFAULT_SORT]), "pk"))

    # What needs the locations (a subtree, a search, their names' order) is found in one query
    # joining them; the rest from the index, a range at a time.
    by_location = subtree or bool(match) or sort in ("location", "-location")
    if by_location:
        found = LateSites(rows, {d.site_id: d for d in delays}, now)
    else:
        order = KEY_SORTS.get(sort, KEY_SORTS[DEFAULT_SORT])
        columns = ["id", "due_at", *(name.lstrip("-") for name in order if name.lstrip("-")
                                     not in ("id", "due_at"))]
        found = LateSites(
            rows, {d.site_id: d for d in delays}, now,
            keys=_late_keys(sites, ranges, late_now, columns).order_by(*order, "id"),
            identities=_late_keys(sites, ranges, late_now,
                                  ["id", "business_id", "site_id", "status_since"]))
    if leave_out is None:
        return found
    keys = found.identities()
    known = leave_out(min(since for *_, since in keys)) if keys else ()
    return found.only([pk for pk, business_id, site_id, since in keys
                       if (business_id, site_id, since) not in known])


def _late_keys(sites: QuerySet, ranges: list[_Range], now: datetime,
               columns: list[str]) -> QuerySet:
    """`columns` of the late sites (in no order), one query per range united: each reads its
    range of the aged-sites index, and its due moment (`due_at`) is since + the range's days,
    so that counting, finding a page and listing them touch the index rather than every late
    site's row."""
    parts = [sites.filter(late_range.q(now))
             .annotate(due_at=ExpressionWrapper(
                 F("status_since") + Value(timedelta(days=late_range.days)),
                 output_field=DateTimeField()))
             .order_by().values_list(*columns)
             for late_range in ranges]
    if not parts:
        return sites.none().annotate(due_at=F("status_since")).values_list(*columns)
    return parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]


def late_sites_by_business(*, tenant: Reseller, businesses: Iterable[Business],
                           now: datetime | None = None) -> dict[int, int]:
    """How many sites of each of `businesses` are late (business pk -> count), in one query."""
    ids = [b.pk for b in businesses]
    if not ids:
        return {}
    rows = (late_site_rows(tenant=tenant, now=now).filter(business_id__in=ids)
            .values("business_id").annotate(n=Count("pk")).values_list("business_id", "n"))
    return dict(rows)


# -- what the history keeps up to date ----------------------------------------------------------

UPDATE_BATCH = 500


def ageing_refresh(*, tenant: Reseller, learn: bool = True,
                   now: datetime | None = None) -> dict[str, int]:
    """Learn the directories' delays (when `learn`), then store each location's count of late
    sites on its status report where it changed: a few statements whatever the account's size
    (one more per 500 changed counts)."""
    now = now or timezone.now()
    learned = delays_learn(tenant=tenant, now=now) if learn else 0
    counts = dict(late_site_rows(tenant=tenant, now=now).values("business_id")
                  .annotate(n=Count("pk")).values_list("business_id", "n"))
    reports = ListingStatusReport.objects.filter(reseller=tenant)
    current = dict(reports.filter(late_sites_count__gt=0)
                   .values_list("business_id", "late_sites_count"))
    changed = {business_id: counts.get(business_id, 0)
               for business_id in set(counts) | set(current)
               if counts.get(business_id, 0) != current.get(business_id, 0)}
    ids = sorted(changed)
    for start in range(0, len(ids), UPDATE_BATCH):
        batch = ids[start:start + UPDATE_BATCH]
        reports.filter(business_id__in=batch).update(late_sites_count=Case(
            *(When(business_id=b, then=Value(changed[b])) for b in batch),
            default=F("late_sites_count"), output_field=IntegerField()))
    return {"learned": learned, "counts_changed": len(changed)}


def delays_learn(*, tenant: Reseller, now: datetime | None = None) -> int:
    """Each site's median wait from Submitted or In Progress to Synced over the reseller's
    changes of the last LEARN_WINDOW_DAYS (the wait starts at the change into a waiting status
    that began the run, so Submitted then In Progress counts once, whole). Stored on the site's
    DirectoryDelay row; returns how many sites have a figure."""
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
    return len(waits)


__all__ = ["ACTION_REQUIRED_GRACE_DAYS", "DEFAULT_DELAYS", "Delay", "LateSite", "LateSites",
           "STATUS_PARAMS", "ageing_refresh", "delays_learn", "directory_delay_set",
           "directory_delays", "late_site_rows", "late_sites", "late_sites_by_business"]

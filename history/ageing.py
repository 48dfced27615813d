"""The sites late against their directory's usual delay (history.delays), and what the
needs-action ranking reads of them.

A site is late once its due moment (`ListingSite.due_at`: since + its delay) has passed. Reads:
`late_sites` (filtered and sorted in SQL, a page at a time), `late_site_rows` (the rows, for
other counts) and `late_sites_by_business`. Writes: `ageing_refresh` (each location's count of
late sites on its status report, after giving their due moment to the sites the mirror cleared
it on; with `learn`, the delays learned again and every site's due moment checked), run when
the history records.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Upper
from django.utils import timezone

from accounts.filtersets import BIGINT_MAX, search_words
from accounts.models import Business, Membership, Reseller
from history.delays import (
    ACTION_REQUIRED,
    IN_PROGRESS,
    SOURCE_LABELS,
    SUBMITTED,
    Delay,
    delay_of_unknown_site,
    delays_learn,
    directory_delays,
    sites_due_refresh,
)
from listings.models import ListingSite, ListingStatusReport

logger = logging.getLogger(__name__)

# The `status` filter's words (URLs carry words, not the provider's spelling).
STATUS_PARAMS = {"submitted": SUBMITTED, "in_progress": IN_PROGRESS,
                 "action_required": ACTION_REQUIRED}


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


# Each sort, then the id in the same direction: a page follows the order of the due-moment
# index (`listing_site_due_idx`, on reseller, due_at, id) when it sorts by lateness.
SORTS = {
    # Most late first is the earliest due; the oldest is the earliest since.
    "late_by": ("-due_at", "-pk"), "-late_by": ("due_at", "pk"),
    "age": ("-status_since", "-pk"), "-age": ("status_since", "pk"),
    "site": ("site_name", "due_at", "pk"), "-site": ("-site_name", "due_at", "pk"),
    "location": ("business__name", "due_at", "pk"),
    "-location": ("-business__name", "due_at", "pk"),
}
SORT_CHOICES = [("-late_by", "Most late first"), ("late_by", "Least late first"),
                ("-age", "Oldest first"), ("age", "Newest first"), ("site", "Site"),
                ("-site", "Site, Z to A"), ("location", "Location"),
                ("-location", "Location, Z to A")]
DEFAULT_SORT = "-late_by"


def _current_sites(*, tenant: Reseller, membership: Membership | None) -> QuerySet:
    """The current sites with a due moment (waiting or asking for action: the mirror clears it
    on any other status) of the current locations the member may see."""
    sites = ListingSite.objects.filter(reseller=tenant, removed_at__isnull=True,
                                       due_at__isnull=False)
    # The few removed locations are left out by their ids (one small hashed subquery) rather
    # than by joining every late site to its location: the count then reads the index alone.
    sites = sites.exclude(business__in=Business.objects.filter(
        reseller=tenant, removed_at__isnull=False).values("pk"))
    if membership is not None and membership.limited_to_id is not None:
        sites = _of_subtree(sites, tenant=tenant, node=membership.limited_to)
    return sites


def _of_subtree(sites: QuerySet, *, tenant: Reseller, node: Business) -> QuerySet:
    """The sites of the locations under `node` (itself included). The location's reseller is
    named too, so that the subtree is read from the businesses' (reseller, tree_path) index
    alone rather than by a scan of every business (a third of a limited member's page)."""
    return sites.filter(node.subtree_q(prefix="business__"), business__reseller=tenant)


def late_site_rows(*, tenant: Reseller, membership: Membership | None = None,
                   now: datetime | None = None) -> QuerySet:
    """The late sites as a queryset of ListingSite rows (in no order): current sites of current
    locations the member may see, due before `now`."""
    return (_current_sites(tenant=tenant, membership=membership)
            .filter(due_at__lt=now or timezone.now()).order_by())


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
    return (ListingSite.objects.filter(pk__in=ids, removed_at__isnull=True,
                                       due_at__isnull=False)
            .select_related("business").defer("raw", "business__raw"))


class LateSites:
    """The late sites, filtered and sorted in SQL, read a page at a time: a sequence of
    `LateSite` that Django's paginator and the API's pagination slice and count.

    The count and a page's ids are read first (from the due-moment index alone, unless a
    location's name, place or subtree is asked for), then the page's rows by their ids. With
    `ids`, only those of the late sites, in no order (`only`)."""

    def __init__(self, late: QuerySet, order: tuple[str, ...], delays: dict[int, Delay],
                 now: datetime, ids: list[int] | None = None):
        self.late = late
        self.order = order
        self.delays = delays
        self.now = now
        self.ids = ids

    def count(self) -> int:
        return len(self.ids) if self.ids is not None else self.late.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            found = self[index:index + 1]
            if not found:
                raise IndexError(index)
            return found[0]
        ids = (self.ids[index] if self.ids is not None else
               list(self.late.order_by(*self.order).values_list("pk", flat=True)[index]))
        sites = {site.pk: site for site in _rows_by_id(ids)}
        # A site that moved on between the two reads is left out of the page.
        return [self._row(sites[pk]) for pk in ids if pk in sites]

    def __iter__(self) -> Iterator[LateSite]:
        if self.ids is not None:
            for start in range(0, len(self.ids), ROWS_BATCH):
                yield from (self._row(site)
                            for site in _rows_by_id(self.ids[start:start + ROWS_BATCH]))
            return
        rows = (self.late.order_by(*self.order).select_related("business")
                .defer("raw", "business__raw"))
        yield from (self._row(site) for site in rows.iterator(chunk_size=ROWS_BATCH))

    def keys(self) -> list[tuple[int, int, int, datetime]]:
        """(id, location's id, site id, since) of every late site, in no order, from the index
        alone: what the alerts compare with the sites told."""
        return list(self.late.order_by().values_list("pk", "business_id", "site_id",
                                                     "status_since"))

    def only(self, ids: list[int]) -> LateSites:
        """These of the late sites (ids), in no order: counted by their number, read 500 a
        query."""
        return LateSites(self.late, self.order, self.delays, self.now, ids=ids)

    def _row(self, site: ListingSite) -> LateSite:
        delay = self.delays.get(site.site_id) or delay_of_unknown_site(site.site_id,
                                                                       site.site_name)
        _, source = delay.days_for(site.status)
        return LateSite(
            business=site.business, site_id=site.site_id, site_name=site.site_name,
            status=site.status, since=site.status_since,
            since_is_lower_bound=site.previous_status is None,
            age_days=(self.now - site.status_since).days,
            delay_days=(site.due_at - site.status_since).days, delay_source=source,
            late_by_days=max(0, (self.now - site.due_at).days), errors=site.errors or [],
            url=site.url)


def late_sites(*, tenant: Reseller, membership: Membership | None = None,
               site_id: int | None = None, status: str | None = None,
               within: int | None = None, search: str = "", sort: str = DEFAULT_SORT,
               late_by: int = 0,
               leave_out: Callable[[datetime], Collection[tuple[int, int, datetime]]]
               | None = None,
               delays: list[Delay] | None = None, now: datetime | None = None) -> LateSites:
    """The sites late against their directory's usual delay that the member may see, most
    late first by default. `status` is a word of STATUS_PARAMS; `within` the business number
    of a reseller or an enterprise (among what the member may see: another finds nothing);
    `search` words of the location's name, alias, city, state, postal code or number;
    `late_by` the days a site must be late by at least. `leave_out` is asked, with the oldest
    since among the late sites, for the (location's id, site id, since) of those to leave out
    (the alerts leave out the sites told): the sites are compared by these keys, read from the
    index, and only the others are read whole. `delays` spares reading the table again."""
    now = now or timezone.now()
    delays = directory_delays(tenant=tenant) if delays is None else delays
    # Late by at least `late_by` days: due at least that long ago.
    late = late_site_rows(tenant=tenant, membership=membership,
                          now=now - timedelta(days=late_by))
    if within is not None:
        node = Business.objects.filter(reseller=tenant, remote_id=within,
                                       removed_at__isnull=True)
        if membership is not None and membership.limited_to_id is not None:
            node = node.filter(membership.limited_to.subtree_q())
        node = node.only("pk", "tree_path").first()
        late = (_of_subtree(late, tenant=tenant, node=node)
                .exclude(business=node) if node is not None else late.none())
    match = Q()
    for word in search_words(search):
        found = Q(business__search_text__contains=Upper(Value(word)))
        if word.isascii() and word.isdigit() and int(word) <= BIGINT_MAX:
            found |= Q(business__remote_id=int(word))
        match &= found
    if match:
        late = late.filter(match)
    if site_id is not None:
        late = late.filter(site_id=site_id)
    if status:
        late = late.filter(status=STATUS_PARAMS[status])
    found = LateSites(late, SORTS.get(sort, SORTS[DEFAULT_SORT]),
                      {d.site_id: d for d in delays}, now)
    if leave_out is None:
        return found
    keys = found.keys()
    known = leave_out(min(since for *_, since in keys)) if keys else ()
    return found.only([pk for pk, business_id, site_id, since in keys
                       if (business_id, site_id, since) not in known])


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
    """Give the sites without a due moment theirs (the mirror cleared them: the statuses a sync
    run brought); with `learn` (each evening), learn the directories' delays first and check
    every site's due moment instead (a new default after an upgrade, a run that wrote with the
    delays of just before an owner changed one). Then store each location's count of late
    sites on its status report where it changed. A few statements whatever the account's size
    (one more per 500 changed counts)."""
    now = now or timezone.now()
    learned = 0
    if learn:
        learned = delays_learn(tenant=tenant, now=now)
    due_written = sites_due_refresh(tenant=tenant, missing_only=not learn)
    if learn and due_written:
        logger.info("ageing: %s sites of %s had a due moment out of date", due_written,
                    tenant.slug)
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
    return {"learned": learned, "due_written": due_written, "counts_changed": len(changed)}


__all__ = ["DEFAULT_SORT", "SORTS", "SORT_CHOICES", "STATUS_PARAMS", "LateSite", "LateSites",
           "ageing_refresh", "duration_words", "late_site_rows", "late_sites",
           "late_sites_by_business"]

"""Writing fetched listing data into the mirror, in bulk across a batch of locations."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import connection
from django.db.models import BooleanField, F, FloatField, OuterRef, Subquery, Value
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from accounts.models import Business, Reseller
from listings.models import (
    AiSearchConfiguration,
    Answer,
    ListingSite,
    ListingStatusReport,
    Question,
    SiteStatusChange,
)
from portal.mirror import BATCH_SIZE, mark_removed, upsert
from provider import types as provider_types

REPORT_FIELDS = ["business", "business_name", "activation_status", "location_status",
                 "last_updated_text", "publish_listings", "errors", "total_sites", "synced_count",
                 "submitted_count", "need_updates_count", "opted_out_count",
                 "not_connected_count", "needs_action"]
SITE_FIELDS = ["site_name", "status", "errors", "url"]
QUESTION_FIELDS = ["business", "question", "asked_by_owner", "answered_by_owner", "updated_by",
                   "updated_on", "time", "user_category", "answer_count", "asked_at"]
ANSWER_FIELDS = ["question", "answer", "answered_by_owner", "updated_by", "updated_on", "time",
                 "user_category", "answered_at"]

SiteReport = tuple[Business, provider_types.LocationStatusReport]


def status_reports_mirror(*, tenant: Reseller, reports: Sequence[SiteReport],
                          seen_at: datetime,
                          source: str = SiteStatusChange.Source.SYNC) -> None:
    report_rows, site_rows = [], []
    for business, report in reports:
        need_updates = report.need_updates_count or 0
        report_rows.append(ListingStatusReport(
            reseller=tenant, remote_id=business.remote_id, business=business,
            business_name=report.business_name or "",
            activation_status=report.activation_status or "",
            location_status=report.location_status or "",
            last_updated_text=report.last_updated or "",
            publish_listings=report.publish_listings or "", errors=list(report.errors),
            total_sites=report.total_sites or 0, synced_count=report.synced_count or 0,
            submitted_count=report.submitted_count or 0, need_updates_count=need_updates,
            opted_out_count=report.opted_out_count or 0,
            not_connected_count=report.not_connected_count or 0,
            needs_action=need_updates > 0 or bool(report.errors),
            # A removed business's report (its page can still refresh it) stays out of the
            # account's totals, as the business does.
            raw=dict(report.raw), last_seen_at=seen_at, removed_at=business.removed_at,
        ))
        for site in report.sites:
            if site.site_id is None:
                continue
            site_rows.append(ListingSite(
                reseller=tenant, business=business, site_id=site.site_id,
                site_name=site.site_name or "", status=site.status or "",
                errors=list(site.errors), url=site.url or "", raw=dict(site.raw),
                last_seen_at=seen_at, removed_at=None, status_since=seen_at,
            ))
    upsert(ListingStatusReport, report_rows, unique_fields=["reseller", "remote_id"],
           update_fields=REPORT_FIELDS)
    changes = sites_upsert(site_rows, seen_at=seen_at)
    if changes:
        SiteStatusChange.objects.bulk_create(
            [SiteStatusChange(reseller=tenant, business_id=business_id, site_id=site_id,
                              site_name=site_name, from_status=before, to_status=after,
                              at=seen_at, source=source)
             for business_id, site_id, site_name, before, after in changes],
            batch_size=BATCH_SIZE)
    businesses = [business.pk for business, _ in reports]
    mark_removed(ListingSite.objects.filter(business_id__in=businesses), seen_at=seen_at)
    report_summary_refresh(business_ids=businesses)


_SITE_COLUMNS = ["reseller", "business", "site_id", *SITE_FIELDS, "raw", "last_seen_at",
                 "removed_at", "status_since"]


def sites_upsert(rows: Sequence[ListingSite], *,
                 seen_at: datetime) -> list[tuple[int, int, str, str, str]]:
    """Upsert the sites and return (business id, site id, site name, from, to) of each whose
    status changed: the stored status is compared in the upsert itself (no read before it).

    A changed status moves the old one to `previous_status`, stamps `status_since` and clears
    `due_at`; an unchanged one keeps all three; a new site keeps its first sighting and no
    previous status.
    Raw SQL, the same on PostgreSQL and SQLite: the ORM's upsert cannot keep a column on a
    condition nor return the one it replaced.
    """
    if not rows:
        return []
    fields = [ListingSite._meta.get_field(name) for name in _SITE_COLUMNS]
    quote = connection.ops.quote_name
    table = quote(ListingSite._meta.db_table)
    status = quote("status")
    assignments = []
    for field in fields[3:]:
        column = quote(field.column)
        if field.name == "status_since":
            assignments.append(f"{column} = CASE WHEN {table}.{status} = excluded.{status} "
                               f"THEN {table}.{column} ELSE excluded.{column} END")
        else:
            assignments.append(f"{column} = excluded.{column}")
    previous = quote("previous_status")
    assignments.append(f"{previous} = CASE WHEN {table}.{status} = excluded.{status} "
                       f"THEN {table}.{previous} ELSE {table}.{status} END")
    # The moment a site becomes late belongs to the status it was worked out for: a new status
    # has none until the history gives it its own (a new site has none either).
    due = quote("due_at")
    assignments.append(f"{due} = CASE WHEN {table}.{status} = excluded.{status} "
                       f"THEN {table}.{due} END")
    since = quote("status_since")
    row_sql = "(" + ", ".join(["%s"] * len(fields)) + ")"
    since_param = fields[-1].get_db_prep_save(seen_at, connection)
    # One field more than the rows bind: the RETURNING clause's parameter.
    batch = min(BATCH_SIZE,
                connection.ops.bulk_batch_size([*fields, fields[-1]], rows) or BATCH_SIZE)
    changed = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch):
            part = rows[start:start + batch]
            params = [field.get_db_prep_save(getattr(row, field.attname), connection)
                      for row in part for field in fields]
            # Columns and expressions come from the model; the values are all parameters.
            cursor.execute(
                f"INSERT INTO {table} ({', '.join(quote(f.column) for f in fields)}) "  # noqa: S608
                f"VALUES {', '.join([row_sql] * len(part))} "
                f"ON CONFLICT ({', '.join(quote(f.column) for f in fields[:3])}) "
                f"DO UPDATE SET {', '.join(assignments)} "
                f"RETURNING {quote('business_id')}, {quote('site_id')}, {quote('site_name')}, "
                f"{previous}, {status}, CASE WHEN {since} = %s THEN 1 ELSE 0 END",
                [*params, since_param])
            changed += [(business_id, site_id, name, before, after)
                        for business_id, site_id, name, before, after, now in cursor.fetchall()
                        if now and before is not None]
    return changed


def status_reports_of_removed_businesses_mark_removed(*, tenant: Reseller,
                                                     removed_at: datetime) -> None:
    """A removed business's status report goes with it: a current report always belongs to a
    current location, which lets the account's listing health be summed from the reports
    alone (`listing_health_of_account`)."""
    ListingStatusReport.objects.filter(
        reseller=tenant, removed_at__isnull=True, business__removed_at__isnull=False,
    ).update(removed_at=removed_at)


def report_summary_refresh(*, business_ids: Sequence[int]) -> None:
    """Copy the synced share and the needs-action flag of each business's report onto it (the
    list sorts and filters on them from its indexes): one UPDATE for the whole batch. The ids
    come from one tenant's rows."""
    Business.unscoped.filter(pk__in=business_ids).update(
        synced_percent=synced_percent_of_report(ListingStatusReport),
        needs_action=needs_action_of_report(ListingStatusReport))


def synced_percent_of_report(report_model) -> Subquery:
    """The synced share of a business's listing sites from its status report, as a subquery
    for `Business.update(synced_percent=...)`; None without a report or without sites.

    Works on the model or its migration-time copy, hence the base manager: the subquery is
    bound to the business row being updated, which already belongs to one tenant.
    """
    return Subquery(
        report_model._base_manager.filter(business=OuterRef("pk"), total_sites__gt=0)
        .annotate(percent=Cast(F("synced_count"), FloatField()) * Value(100.0)
                  / Cast(F("total_sites"), FloatField()))
        .values("percent")[:1],
        output_field=FloatField())


def needs_action_of_report(report_model) -> Coalesce:
    """Whether a business's status report needs action (False without one), as an expression
    for `Business.update(needs_action=...)`; see `synced_percent_of_report`."""
    return Coalesce(
        Subquery(report_model._base_manager.filter(business=OuterRef("pk"))
                 .values("needs_action")[:1], output_field=BooleanField()),
        Value(False))


QnaPages = tuple[Business, list[provider_types.QnaQuestion]]


def qna_moment(day: str | None, clock: str | None) -> datetime | None:
    """A Q&A entry's `updatedOn` ("Jan 02, 2026") and `time` ("10:00 AM") as one moment, or
    None when the day cannot be read. The provider names no time zone for them; they are read
    in the portal's own (settings.TIME_ZONE), the one the sandbox writes them in. They only
    order entries among themselves, so a zone the same for all of them is what matters."""
    day = (day or "").strip()
    clock = " ".join((clock or "").upper().split())
    if not day:
        return None
    for text, pattern in ((f"{day} {clock}", "%b %d, %Y %I:%M %p"), (day, "%b %d, %Y")):
        try:
            naive = datetime.strptime(text, pattern)
        except ValueError:
            continue
        return timezone.make_aware(naive, timezone.get_default_timezone())
    return None


def questions_mirror(*, tenant: Reseller, pages: Sequence[QnaPages], seen_at: datetime) -> None:
    """Mirror the complete Q&A of each business in `pages`; what is missing was deleted."""
    question_rows, answers_by_question = [], {}
    for business, questions in pages:
        for question in questions:
            if question.question_id is None:
                continue
            question_rows.append(Question(
                reseller=tenant, business=business, remote_id=question.question_id,
                question=question.question or "", asked_by_owner=bool(question.asked_by_owner),
                answered_by_owner=bool(question.answered_by_owner),
                updated_by=question.updated_by or "", updated_on=question.updated_on or "",
                time=question.time or "", user_category=question.user_category or "",
                answer_count=question.no_of_answers or len(question.answers),
                asked_at=qna_moment(question.updated_on, question.time),
                raw=dict(question.raw), last_seen_at=seen_at, removed_at=None,
            ))
            answers_by_question[question.question_id] = question.answers
    upsert(Question, question_rows, unique_fields=["reseller", "remote_id"],
           update_fields=QUESTION_FIELDS)
    answer_rows = []
    if any(answers_by_question.values()):
        # The upsert set the primary keys (RETURNING); look up only what a backend left unset.
        question_pks = {row.remote_id: row.pk for row in question_rows if row.pk is not None}
        unknown = [q for q, a in answers_by_question.items() if a and q not in question_pks]
        if unknown:
            question_pks.update(Question.objects.filter(
                reseller=tenant, remote_id__in=unknown).values_list("remote_id", "pk"))
        for question_remote_id, answers in answers_by_question.items():
            for answer in answers:
                if answer.answer_id is None:
                    continue
                answer_rows.append(Answer(
                    reseller=tenant, question_id=question_pks[question_remote_id],
                    remote_id=answer.answer_id, answer=answer.answer or "",
                    answered_by_owner=bool(answer.answered_by_owner),
                    updated_by=answer.updated_by or "", updated_on=answer.updated_on or "",
                    time=answer.time or "", user_category=answer.user_category or "",
                    answered_at=qna_moment(answer.updated_on, answer.time),
                    raw=dict(answer.raw), last_seen_at=seen_at, removed_at=None,
                ))
    upsert(Answer, answer_rows, unique_fields=["reseller", "remote_id"],
           update_fields=ANSWER_FIELDS)
    businesses = [business.pk for business, _ in pages]
    mark_removed(Question.objects.filter(business_id__in=businesses), seen_at=seen_at)
    mark_removed(Answer.objects.filter(question__business_id__in=businesses), seen_at=seen_at)


def ai_search_configuration_mirror(*, tenant: Reseller,
                                   configuration: provider_types.AiSearchConfiguration,
                                   seen_at: datetime) -> None:
    themes = [{"theme": t.theme or "", "prompts": list(t.prompts)} for t in configuration.themes]
    upsert(AiSearchConfiguration, [AiSearchConfiguration(
        reseller=tenant, remote_id=tenant.account_number,
        frequency=configuration.frequency or "", quota=configuration.quota,
        billing_type=configuration.billing_type or "", themes=themes,
        raw=dict(configuration.raw), last_seen_at=seen_at, removed_at=None,
    )], unique_fields=["reseller", "remote_id"],
        update_fields=["frequency", "quota", "billing_type", "themes"])

"""Report schedules: their times, their writes, and the sending of their reports.

Times. A schedule sends at its day and hour in the reseller's time zone ("the 1st at 08:00
Europe/Paris"); `next_send_after` answers that moment in UTC, and a send covers the period
before its local day: the Monday to Sunday before it (weekly), the calendar month before it
(monthly).

Sending, on the workers. Every few minutes the beat task calls `schedules_due_claim`: each
schedule whose `next_send_at` has passed is locked (skipping those another worker holds), its
report of the period gets a `SentReport` row, and its next time is worked out. The row is
unique per schedule and period, so a second worker, or the same schedule found due twice, adds
nothing (IntegrityError) and the report goes once. The send task then claims the row (a
conditional update from `queued` to `sending`, under a row lock), renders the PDF
(`reports.rendering.report_render`), emails it in the reseller's brand and marks it sent; a
failure puts it back to `queued` with the error in words, for a retry with a growing delay, and
marks it failed after REPORTS_MAX_ATTEMPTS. A row sent, failed or cancelled is never sent
again, and the report of a schedule turned off or deleted since it was claimed is cancelled,
not sent.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from accounts.brand import brand_get
from accounts.brand_emails import brand_email_send
from accounts.models import Business, Membership, Reseller, User
from accounts.selectors import business_list
from accounts.services import audit_record
from portal.retries import retry_delay
from reports.models import MAX_RECIPIENTS, Frequency, ReportSchedule, SentReport, Weekday

logger = logging.getLogger(__name__)

# A row left `queued` or `sending` this long (a lost task, a worker killed mid-send) is queued
# again by the beat task. It stays above the longest retry delay (REPORTS_RETRY_BASE_SECONDS
# doubled REPORTS_MAX_ATTEMPTS times).
STALE_SECONDS = 6 * 3600
MAX_ERROR_LENGTH = 1000


def max_attempts() -> int:
    return settings.REPORTS_MAX_ATTEMPTS


# -- time ------------------------------------------------------------------------------------


def reseller_zone(reseller: Reseller) -> ZoneInfo:
    """The reseller's zone; UTC should a stored name no longer be known."""
    try:
        return ZoneInfo(reseller.time_zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _at(day: date, hour: int, zone: ZoneInfo) -> datetime:
    # An hour skipped by a clock change (02:00 in spring) falls an hour later; an hour lived
    # twice (autumn) is its first occurrence: either way one send on that day.
    return datetime.combine(day, time(hour), tzinfo=zone).astimezone(ZoneInfo("UTC"))


def _month_day(year: int, month: int, day: int) -> date:
    while month > 12:
        year, month = year + 1, month - 12
    while month < 1:
        year, month = year - 1, month + 12
    return date(year, month, day)


def _candidates(schedule: ReportSchedule, local_day: date) -> list[date]:
    """The schedule's days around `local_day`: from the one before it to the one after it."""
    if schedule.frequency == Frequency.WEEKLY:
        monday = local_day - timedelta(days=local_day.weekday())
        return [monday + timedelta(days=schedule.weekday + 7 * weeks) for weeks in (-1, 0, 1)]
    return [_month_day(local_day.year, local_day.month + months, schedule.day_of_month)
            for months in (-1, 0, 1)]


def next_send_after(schedule: ReportSchedule, moment: datetime,
                    zone: ZoneInfo | None = None) -> datetime:
    """The schedule's first send strictly after `moment`, in UTC, in the reseller's zone (or
    `zone`)."""
    zone = zone or reseller_zone(schedule.reseller)
    local_day = moment.astimezone(zone).date()
    for day in _candidates(schedule, local_day):
        when = _at(day, schedule.hour, zone)
        if when > moment:
            return when
    raise AssertionError("unreachable: the next week or month always comes after")


def last_send_at_or_before(schedule: ReportSchedule, moment: datetime,
                           zone: ZoneInfo | None = None) -> datetime:
    """The schedule's latest send time at or before `moment`, in UTC."""
    zone = zone or reseller_zone(schedule.reseller)
    local_day = moment.astimezone(zone).date()
    for day in reversed(_candidates(schedule, local_day)):
        when = _at(day, schedule.hour, zone)
        if when <= moment:
            return when
    raise AssertionError("unreachable: the week or month before always comes before")


def period_before(frequency: str, local_day: date) -> tuple[date, date]:
    """The last complete period before `local_day`: the Monday to Sunday before its week, or
    the calendar month before its month."""
    if frequency == Frequency.WEEKLY:
        monday = local_day - timedelta(days=local_day.weekday())
        return monday - timedelta(days=7), monday - timedelta(days=1)
    first = local_day.replace(day=1)
    last_of_previous = first - timedelta(days=1)
    return last_of_previous.replace(day=1), last_of_previous


def period_of_send(schedule: ReportSchedule, moment: datetime,
                   zone: ZoneInfo | None = None) -> tuple[date, date]:
    """The period the schedule's send at `moment` covers."""
    zone = zone or reseller_zone(schedule.reseller)
    return period_before(schedule.frequency, moment.astimezone(zone).date())


def local_today(reseller: Reseller, now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(reseller_zone(reseller)).date()


# -- checking what a member sends ---------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleValues:
    business: Business | None
    frequency: str
    weekday: int | None
    day_of_month: int | None
    hour: int
    recipients: list[str]


def _business(*, tenant: Reseller, membership: Membership | None,
              business_number: int | None) -> Business | None:
    limited_to = membership.limited_to if membership is not None else None
    if business_number is None:
        if limited_to is not None:
            raise ValidationError({"business": ValidationError(
                f"Your access is limited to {limited_to.name}: choose it "
                f"({limited_to.remote_id}) or a business under it; the whole account's report "
                "is for members without a limit.", code="required")})
        return None
    found = business_list(tenant=tenant, membership=membership).filter(
        remote_id=business_number).first()
    if found is None:
        raise ValidationError({"business": ValidationError(
            f"No business {business_number} that you may see.", code="not_found")})
    return found


def _recipients(value) -> list[str]:
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError({"recipients": ValidationError(
            "Give at least one email address.", code="required")})
    found: list[str] = []
    bad: list[str] = []
    for item in value:
        address = str(item).strip()
        try:
            validate_email(address)
        except ValidationError:
            bad.append(address[:100])
            continue
        if address.lower() not in {known.lower() for known in found}:
            found.append(address)
    if bad:
        raise ValidationError({"recipients": ValidationError(
            "Not an email address: %(bad)s.", code="invalid",
            params={"bad": ", ".join(bad[:5])})})
    if len(found) > MAX_RECIPIENTS:
        raise ValidationError({"recipients": ValidationError(
            f"At most {MAX_RECIPIENTS} addresses.", code="max_length")})
    return found


def schedule_values_check(*, tenant: Reseller, membership: Membership | None,
                          business_number: int | None, frequency: str, weekday: int | None,
                          day_of_month: int | None, hour: int,
                          recipients: list[str] | None) -> ScheduleValues:
    """The schedule's values, checked, or ValidationError naming each field at fault. The
    business is looked up among those the member may see; `recipients` None is not checked
    (a preview has none)."""
    errors: dict[str, ValidationError] = {}
    if frequency not in Frequency.values:
        errors["frequency"] = ValidationError("Choose weekly or monthly.", code="invalid_choice")
    elif frequency == Frequency.WEEKLY:
        day_of_month = None
        if weekday not in Weekday.values:
            errors["weekday"] = ValidationError("Choose the day of the week it is sent.",
                                                code="required")
    else:
        weekday = None
        if not isinstance(day_of_month, int) or not 1 <= day_of_month <= 28:
            errors["day_of_month"] = ValidationError(
                "Choose a day from 1 to 28 (every month has it).", code="invalid")
    if not isinstance(hour, int) or isinstance(hour, bool) or not 0 <= hour <= 23:
        errors["hour"] = ValidationError("An hour from 0 to 23.", code="invalid")
    business = None
    try:
        business = _business(tenant=tenant, membership=membership,
                             business_number=business_number)
    except ValidationError as error:
        errors.update(error.error_dict)
    checked: list[str] = []
    if recipients is not None:
        try:
            checked = _recipients(recipients)
        except ValidationError as error:
            errors.update(error.error_dict)
    if errors:
        raise ValidationError(errors)
    return ScheduleValues(business=business, frequency=frequency, weekday=weekday,
                          day_of_month=day_of_month, hour=hour, recipients=checked)


def _summary(schedule: ReportSchedule) -> dict:
    return {"business": schedule.business.remote_id if schedule.business_id else None,
            "frequency": schedule.frequency, "when": schedule.when_text,
            "time_zone": schedule.zone, "recipients": len(schedule.recipients),
            "active": schedule.active}


def _plan(schedule: ReportSchedule, now: datetime) -> None:
    """Work out the schedule's next send (none while it is off)."""
    zone = reseller_zone(schedule.reseller)
    schedule.zone = str(zone.key)
    schedule.next_send_at = next_send_after(schedule, now, zone) if schedule.active else None


# -- writes ---------------------------------------------------------------------------------------


@transaction.atomic
def schedule_create(*, tenant: Reseller, actor: User | None, membership: Membership | None,
                    business_number: int | None, frequency: str, weekday: int | None = None,
                    day_of_month: int | None = None, hour: int, recipients: list[str],
                    active: bool = True, now: datetime | None = None) -> ReportSchedule:
    """A new schedule of a client's report (`business_number` None: the whole account, for
    members without a limit only), its next send worked out from `now`."""
    values = schedule_values_check(tenant=tenant, membership=membership,
                                   business_number=business_number, frequency=frequency,
                                   weekday=weekday, day_of_month=day_of_month, hour=hour,
                                   recipients=recipients)
    schedule = ReportSchedule(reseller=tenant, business=values.business,
                              frequency=values.frequency, weekday=values.weekday,
                              day_of_month=values.day_of_month, hour=values.hour,
                              recipients=values.recipients, active=active,
                              created_by=actor if actor is not None and actor.pk else None)
    _plan(schedule, now or timezone.now())
    schedule.save()
    audit_record(tenant=tenant, actor=actor, action="report_schedule.created", obj=schedule,
                 summary=_summary(schedule))
    return schedule


@transaction.atomic
def schedule_update(*, tenant: Reseller, actor: User | None, membership: Membership | None,
                    schedule: ReportSchedule, business_number: int | None, frequency: str,
                    weekday: int | None = None, day_of_month: int | None = None, hour: int,
                    recipients: list[str], active: bool = True,
                    now: datetime | None = None) -> ReportSchedule:
    """Change a schedule (one the member may see); its next send is worked out again. A period
    it already sent is not sent again, whatever the change."""
    values = schedule_values_check(tenant=tenant, membership=membership,
                                   business_number=business_number, frequency=frequency,
                                   weekday=weekday, day_of_month=day_of_month, hour=hour,
                                   recipients=recipients)
    schedule = ReportSchedule.objects.select_for_update().get(pk=schedule.pk)
    schedule.business, schedule.frequency = values.business, values.frequency
    schedule.weekday, schedule.day_of_month = values.weekday, values.day_of_month
    schedule.hour, schedule.recipients, schedule.active = (values.hour, values.recipients,
                                                           active)
    schedule.reseller = tenant
    _plan(schedule, now or timezone.now())
    schedule.save()
    audit_record(tenant=tenant, actor=actor, action="report_schedule.updated", obj=schedule,
                 summary=_summary(schedule))
    return schedule


@transaction.atomic
def schedule_delete(*, tenant: Reseller, actor: User | None, schedule: ReportSchedule) -> None:
    """Delete a schedule: nothing more is sent by it, not even a report it queued and has not
    sent yet. The reports it sent stay in the history."""
    SentReport.objects.filter(schedule=schedule, trigger=SentReport.Trigger.SCHEDULE,
                              state=SentReport.State.QUEUED).update(
        state=SentReport.State.CANCELLED, updated_at=timezone.now(),
        last_error="The schedule was deleted before this report was sent.")
    summary = _summary(schedule)
    audit_record(tenant=tenant, actor=actor, action="report_schedule.deleted", obj=schedule,
                 summary=summary)
    schedule.delete()


@transaction.atomic
def schedule_send_now(*, tenant: Reseller, actor: User | None, schedule: ReportSchedule,
                      now: datetime | None = None) -> SentReport:
    """Send the schedule's report of its last complete period at once, to its recipients.
    It is not the scheduled send: that one still goes at its time."""
    start, end = period_before(schedule.frequency, local_today(tenant, now))
    row = SentReport.objects.create(
        reseller=tenant, schedule=schedule, trigger=SentReport.Trigger.MANUAL,
        business=schedule.business, period_start=start, period_end=end,
        recipients=list(schedule.recipients),
        created_by=actor if actor is not None and actor.pk else None)
    audit_record(tenant=tenant, actor=actor, action="report_schedule.sent_now", obj=schedule,
                 summary={"sent_report": row.pk, "period": f"{start}/{end}",
                          "recipients": len(row.recipients)})
    _queue_after_commit(row)
    return row


def _queue_after_commit(row: SentReport) -> None:
    from reports import tasks

    reseller_id, row_id = row.reseller_id, row.pk
    transaction.on_commit(lambda: tasks.sent_report_send_task.delay(
        reseller_id=reseller_id, sent_report_id=row_id))


# -- the preview ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preview:
    first_send_at: datetime
    period_start: date
    period_end: date
    # The period's end shown so far: a period still running is previewed up to today.
    shown_end: date


def schedule_preview_period(*, tenant: Reseller, values: ScheduleValues,
                            now: datetime | None = None) -> Preview:
    """The period the first send of a schedule with `values` would cover, from `now`."""
    now = now or timezone.now()
    draft = ReportSchedule(reseller=tenant, frequency=values.frequency, weekday=values.weekday,
                           day_of_month=values.day_of_month, hour=values.hour)
    first = next_send_after(draft, now)
    start, end = period_of_send(draft, first)
    # The report refuses days after today: the server's today and the agency's, whichever
    # comes first.
    today = min(local_today(tenant, now), timezone.localdate(now))
    return Preview(first_send_at=first, period_start=start, period_end=end,
                   shown_end=max(start, min(end, today)))


def schedule_preview(*, tenant: Reseller, values: ScheduleValues, now: datetime | None = None):
    """The PDF of the period a schedule's first send would cover (so far, when it is still
    running): `reports.rendering.RenderedReport`."""
    from reports.rendering import report_render

    preview = schedule_preview_period(tenant=tenant, values=values, now=now)
    return report_render(tenant=tenant, business=values.business,
                         date_from=preview.period_start, date_to=preview.shown_end)


# -- sending (the workers) -------------------------------------------------------------------------


def schedules_rezone(*, now: datetime | None = None) -> int:
    """Work out again the schedules of resellers that moved to another time zone."""
    now = now or timezone.now()
    moved = list(ReportSchedule.unscoped.filter(active=True)
                 .exclude(zone=F("reseller__time_zone")).select_related("reseller"))
    for schedule in moved:
        _plan(schedule, now)
        ReportSchedule.unscoped.filter(pk=schedule.pk).update(
            zone=schedule.zone, next_send_at=schedule.next_send_at)
    return len(moved)


def schedules_due_claim(*, now: datetime | None = None) -> list[SentReport]:
    """Claim every schedule due at `now`, across resellers: store its report of the period
    (unless a worker did already) and plan its next send. Returns the rows stored by this call;
    their sending is queued after the commit."""
    now = now or timezone.now()
    schedules_rezone(now=now)
    claimed: list[SentReport] = []
    due = list(ReportSchedule.unscoped.filter(active=True, next_send_at__lte=now)
               .exclude(reseller__status=Reseller.Status.SUSPENDED)
               .order_by("next_send_at").values_list("pk", flat=True))
    for pk in due:
        with transaction.atomic():
            schedule = (ReportSchedule.unscoped.select_for_update(skip_locked=True, of=("self",))
                        .select_related("reseller", "business")
                        .filter(pk=pk, active=True, next_send_at__lte=now).first())
            if schedule is None:  # another worker holds it, or it was done or turned off
                continue
            zone = reseller_zone(schedule.reseller)
            # Late (the workers were down): the latest period due, never a string of old ones.
            start, end = period_of_send(schedule, last_send_at_or_before(schedule, now, zone),
                                        zone)
            row = None
            try:
                with transaction.atomic():
                    row = SentReport.unscoped.create(
                        reseller=schedule.reseller, schedule=schedule,
                        trigger=SentReport.Trigger.SCHEDULE, business=schedule.business,
                        period_start=start, period_end=end,
                        recipients=list(schedule.recipients))
            except IntegrityError:
                logger.info("reports: schedule %s's report of %s–%s was already claimed",
                            schedule.pk, start, end)
            schedule.next_send_at = next_send_after(schedule, now, zone)
            schedule.zone = str(zone.key)
            ReportSchedule.unscoped.filter(pk=schedule.pk).update(
                next_send_at=schedule.next_send_at, zone=schedule.zone)
            if row is not None:
                _queue_after_commit(row)
                claimed.append(row)
    return claimed


def sent_reports_stale(*, now: datetime | None = None) -> list[SentReport]:
    """Rows left `queued` or `sending` past STALE_SECONDS: a lost task or a killed worker.
    The beat task queues them again; the claim in `sent_report_send` keeps them once."""
    now = now or timezone.now()
    return list(SentReport.unscoped.filter(
        state__in=[SentReport.State.QUEUED, SentReport.State.SENDING],
        updated_at__lt=now - timedelta(seconds=STALE_SECONDS)).only("pk", "reseller_id"))


class SendFailed(Exception):
    """The report could not be sent this time; `final` when no attempt is left."""

    def __init__(self, message: str, *, final: bool, attempts: int):
        super().__init__(message)
        self.final = final
        self.attempts = attempts


def send_retry_delay(attempts: int) -> float:
    """Seconds before the next attempt, after `attempts` of them: 1, 2, 4, 8... times the base,
    at most a day."""
    return retry_delay(attempts - 1, base=settings.REPORTS_RETRY_BASE_SECONDS, cap=86400)


def error_in_words(error: Exception) -> str:
    """What went wrong, for the person reading the history (never a traceback)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        text = ("The mail server refused the addresses: "
                f"{', '.join(sorted(error.recipients))}.")
    elif isinstance(error, smtplib.SMTPException | ConnectionError | TimeoutError):
        text = f"The mail server did not take the email ({type(error).__name__}: {error})."
    elif isinstance(error, ValidationError):
        text = f"The report could not be made: {' '.join(error.messages)}"
    else:
        text = (f"The report could not be made or sent ({type(error).__name__}: {error}). "
                "It is tried again.")
    return text[:MAX_ERROR_LENGTH]


def _claim_for_sending(*, sent_report_id: int, now: datetime) -> SentReport | str:
    """Take the row from `queued` (or a `sending` a dead worker left) to `sending`, under a
    row lock; answer the row, or why it is not sent now."""
    states = SentReport.State
    with transaction.atomic():
        row = (SentReport.objects.select_for_update(of=("self",))
               .select_related("schedule", "business").filter(pk=sent_report_id).first())
        if row is None:
            return "gone"
        if row.state in (states.SENT, states.FAILED, states.CANCELLED):
            return row.state
        stale = now - timedelta(seconds=STALE_SECONDS)
        if row.state == states.SENDING and row.updated_at > stale:
            return "busy"  # another worker is sending it right now
        if row.trigger == SentReport.Trigger.SCHEDULE and (row.schedule is None
                                                           or not row.schedule.active):
            SentReport.objects.filter(pk=row.pk).update(
                state=states.CANCELLED, updated_at=now,
                last_error="The schedule was turned off or deleted before this report was "
                           "sent.")
            return states.CANCELLED
        # Conditional: whatever a database without row locks let through, one worker wins.
        won = SentReport.objects.filter(pk=row.pk, state=row.state,
                                        attempts=row.attempts).update(
            state=states.SENDING, attempts=F("attempts") + 1, updated_at=now)
        if not won:
            return "busy"
    row.refresh_from_db()
    return row


def _email(tenant: Reseller, row: SentReport, pdf: bytes) -> None:
    brand = brand_get(tenant=tenant)
    base = f"https://{brand.host}" if brand.host else settings.PORTAL_PUBLIC_URL
    history = reverse("sent_report_list", args=[tenant.slug])
    brand_email_send(
        brand=brand, to=list(row.recipients), template="reports/emails/report",
        subject_template="reports/emails/report_subject.txt",
        context={"tenant": tenant, "row": row, "subject_name": row.subject_name,
                 "history_address": f"{base.rstrip('/')}{history}" if base else ""},
        attachments=[(row.filename, pdf, "application/pdf")])


def sent_report_send(*, tenant: Reseller, sent_report_id: int,
                     now: datetime | None = None) -> str:
    """Send one stored report: render its PDF (once: a retry reuses it), email it in the
    reseller's brand with the PDF attached, and mark it sent. Answers the row's state
    afterwards, or why nothing was done ("gone", "busy"); raises SendFailed when this attempt
    failed (the row is back to `queued` for a retry, or `failed` after REPORTS_MAX_ATTEMPTS)."""
    from reports.rendering import report_render

    now = now or timezone.now()
    row = _claim_for_sending(sent_report_id=sent_report_id, now=now)
    if isinstance(row, str):
        return row
    try:
        pdf = bytes(row.pdf) if row.pdf is not None and row.filename else None
        if pdf is None:
            rendered = report_render(tenant=tenant, business=row.business,
                                     date_from=row.period_start, date_to=row.period_end)
            pdf = rendered.pdf
            row.filename, row.pages = rendered.filename, rendered.pages
            SentReport.objects.filter(pk=row.pk).update(pdf=pdf, filename=rendered.filename,
                                                        pages=rendered.pages)
        _email(tenant, row, pdf)
    except Exception as error:  # noqa: BLE001 - every failure is told in words and retried
        words = error_in_words(error)
        final = row.attempts >= max_attempts()
        logger.warning("reports: sent report %s, attempt %s: %s", row.pk, row.attempts, words,
                       exc_info=not isinstance(error, smtplib.SMTPException | ValidationError))
        SentReport.objects.filter(pk=row.pk).update(
            state=SentReport.State.FAILED if final else SentReport.State.QUEUED,
            last_error=words if not final else f"Gave up after {row.attempts} attempts. {words}",
            updated_at=timezone.now())
        raise SendFailed(words, final=final, attempts=row.attempts) from error
    SentReport.objects.filter(pk=row.pk).update(state=SentReport.State.SENT,
                                                sent_at=timezone.now(), last_error="",
                                                updated_at=timezone.now())
    return SentReport.State.SENT

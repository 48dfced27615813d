"""Report schedules and the reports they sent.

A `ReportSchedule` emails a client's report (a business subtree, or the whole account) weekly or
monthly, at a day and hour of the reseller's time zone; `next_send_at` is that moment in UTC,
worked out by `reports.schedules.next_send_after`. Each send is a `SentReport` holding its
period, recipients, state and PDF. A scheduled send is unique per schedule and period, so two
workers that find the same schedule due store one row between them and the report goes once.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from portal.tenancy import TenantOwned

MAX_RECIPIENTS = 20


class Frequency(models.TextChoices):
    WEEKLY = "weekly", "Weekly"
    MONTHLY = "monthly", "Monthly"


class Weekday(models.IntegerChoices):
    MONDAY = 0, "Monday"
    TUESDAY = 1, "Tuesday"
    WEDNESDAY = 2, "Wednesday"
    THURSDAY = 3, "Thursday"
    FRIDAY = 4, "Friday"
    SATURDAY = 5, "Saturday"
    SUNDAY = 6, "Sunday"


class ReportSchedule(TenantOwned):
    """A report of `business`'s subtree (empty: the whole account) emailed to `recipients`
    every week on `weekday`, or every month on `day_of_month`, at `hour` in the reseller's time
    zone. A weekly send covers the Monday to Sunday before it, a monthly one the calendar month
    before it."""

    Frequency = Frequency

    business = models.ForeignKey("accounts.Business", null=True, blank=True,
                                 on_delete=models.CASCADE, related_name="+",
                                 help_text="The client: its subtree is reported. Empty: the "
                                           "whole account.")
    frequency = models.CharField(max_length=8, choices=Frequency.choices)
    weekday = models.PositiveSmallIntegerField(null=True, blank=True, choices=Weekday.choices,
                                               help_text="The day of a weekly send.")
    # Up to the 28th: every month has it.
    day_of_month = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1), MaxValueValidator(28)],
        help_text="The day of a monthly send (1 to 28).")
    hour = models.PositiveSmallIntegerField(validators=[MaxValueValidator(23)],
                                            help_text="The hour of the send (0 to 23), in the "
                                                      "reseller's time zone.")
    recipients = models.JSONField(default=list, help_text="The email addresses it goes to.")
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    next_send_at = models.DateTimeField(null=True, blank=True, editable=False,
                                        help_text="The next send, in UTC; empty when off.")
    # The zone `next_send_at` was worked out in: when the reseller moves to another one, the
    # schedule is worked out again (reports.schedules.schedules_rezone).
    zone = models.CharField(max_length=64, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="report_schedule_day",
                condition=(Q(frequency="weekly", weekday__isnull=False, weekday__lte=6,
                             day_of_month__isnull=True)
                           | Q(frequency="monthly", weekday__isnull=True,
                               day_of_month__gte=1, day_of_month__lte=28))),
            models.CheckConstraint(name="report_schedule_hour", condition=Q(hour__lte=23)),
        ]
        indexes = [
            # What the beat task looks for every few minutes.
            models.Index(fields=["next_send_at"], name="report_schedule_due_idx",
                         condition=Q(active=True)),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_frequency_display()} report of {self.subject_name}"

    @property
    def subject_name(self) -> str:
        return self.business.name if self.business_id else "the whole account"

    @property
    def when_text(self) -> str:
        """"Mondays at 08:00", "the 1st of each month at 08:00"."""
        if self.frequency == Frequency.WEEKLY:
            return f"{Weekday(self.weekday).label}s at {self.hour:02d}:00"
        return f"the {ordinal(self.day_of_month)} of each month at {self.hour:02d}:00"


def ordinal(number: int | None) -> str:
    if number is None:
        return ""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10,
                                                                                 "th")
    return f"{number}{suffix}"


class SentReport(TenantOwned):
    """One report emailed (or being emailed): by its schedule at its time, or at once ("send
    now", `trigger` manual). The PDF is kept, so the history downloads what was sent."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Trigger(models.TextChoices):
        SCHEDULE = "schedule", "On schedule"
        MANUAL = "manual", "Sent now"

    schedule = models.ForeignKey(ReportSchedule, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="sent_reports")
    trigger = models.CharField(max_length=8, choices=Trigger.choices, default=Trigger.SCHEDULE)
    business = models.ForeignKey("accounts.Business", null=True, blank=True,
                                 on_delete=models.CASCADE, related_name="+",
                                 help_text="The client reported. Empty: the whole account.")
    period_start = models.DateField()
    period_end = models.DateField()
    recipients = models.JSONField(default=list)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True, help_text="What went wrong last, in words.")
    pdf = models.BinaryField(null=True, blank=True, editable=False)
    filename = models.CharField(max_length=200, blank=True)
    pages = models.PositiveSmallIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # A schedule's report of a period goes once, whatever the number of workers.
            models.UniqueConstraint(fields=["schedule", "period_start", "period_end"],
                                    condition=Q(trigger="schedule"),
                                    name="sent_report_once_per_period"),
        ]
        indexes = [
            models.Index(fields=["reseller", "-created_at"], name="sent_report_history_idx"),
            # Rows a lost task left behind, found by the beat task.
            models.Index(fields=["updated_at"], name="sent_report_pending_idx",
                         condition=Q(state__in=["queued", "sending"])),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Report {self.period_start}–{self.period_end} ({self.get_state_display()})"

    @property
    def subject_name(self) -> str:
        return self.business.name if self.business_id else "the whole account"

    @property
    def has_pdf(self) -> bool:
        return bool(self.filename)

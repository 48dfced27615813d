"""When a schedule sends, in the reseller's time zone, and which period each send covers."""

from __future__ import annotations

from datetime import date

import pytest

from accounts.models import Reseller
from reports.models import ReportSchedule
from reports.schedules import (
    last_send_at_or_before,
    next_send_after,
    period_before,
    period_of_send,
)
from tests.reports.schedule_helpers import utc


def schedule(zone="Europe/Paris", **values) -> ReportSchedule:
    return ReportSchedule(reseller=Reseller(time_zone=zone), **values)


def test_monthly_on_the_first_at_eight_in_paris():
    monthly = schedule(frequency="monthly", day_of_month=1, hour=8)
    # Paris is UTC+1 in winter: 08:00 there is 07:00 UTC.
    assert next_send_after(monthly, utc(2026, 1, 15, 12)) == utc(2026, 2, 1, 7)
    # Just before its time on the day itself, it is that day; at it, the next month.
    assert next_send_after(monthly, utc(2026, 2, 1, 6, 59)) == utc(2026, 2, 1, 7)
    assert next_send_after(monthly, utc(2026, 2, 1, 7)) == utc(2026, 3, 1, 7)
    # Summer time: 08:00 in Paris is 06:00 UTC.
    assert next_send_after(monthly, utc(2026, 6, 20)) == utc(2026, 7, 1, 6)
    # December runs into January of the next year.
    assert next_send_after(monthly, utc(2026, 12, 5)) == utc(2027, 1, 1, 7)
    assert period_of_send(monthly, utc(2026, 2, 1, 7)) == (date(2026, 1, 1), date(2026, 1, 31))
    assert period_of_send(monthly, utc(2027, 1, 1, 7)) == (date(2026, 12, 1),
                                                           date(2026, 12, 31))


def test_the_reseller_zone_decides_the_day_not_utc():
    # 23:30 UTC on the 31st is already the 1st at 08:30 in Tokyo.
    tokyo = schedule(zone="Asia/Tokyo", frequency="monthly", day_of_month=1, hour=8)
    assert next_send_after(tokyo, utc(2026, 3, 31, 12)) == utc(2026, 3, 31, 23)
    assert period_of_send(tokyo, utc(2026, 3, 31, 23)) == (date(2026, 3, 1), date(2026, 3, 31))
    # Late in the evening of Sunday in New York is Monday in UTC: the week is still New York's.
    new_york = schedule(zone="America/New_York", frequency="weekly", weekday=0, hour=7)
    assert next_send_after(new_york, utc(2026, 3, 2, 3)) == utc(2026, 3, 2, 12)
    assert period_of_send(new_york, utc(2026, 3, 2, 12)) == (date(2026, 2, 23),
                                                             date(2026, 3, 1))


def test_weekly_covers_the_monday_to_sunday_before():
    weekly = schedule(frequency="weekly", weekday=2, hour=9)  # Wednesdays at 09:00
    # Monday 2 March 2026: the next Wednesday is the 4th.
    sent = next_send_after(weekly, utc(2026, 3, 2, 10))
    assert sent == utc(2026, 3, 4, 8)
    assert period_of_send(weekly, sent) == (date(2026, 2, 23), date(2026, 3, 1))
    assert next_send_after(weekly, sent) == utc(2026, 3, 11, 8)
    assert last_send_at_or_before(weekly, utc(2026, 3, 10)) == utc(2026, 3, 4, 8)


def test_clock_changes_send_once_on_the_day():
    # Paris moves from 02:00 to 03:00 on 29 March 2026: a 02:00 send goes at 03:00 local.
    spring = schedule(frequency="weekly", weekday=6, hour=2)
    assert next_send_after(spring, utc(2026, 3, 28)) == utc(2026, 3, 29, 1)
    # On 25 October 2026, 02:00 comes twice: the first one.
    autumn = schedule(frequency="weekly", weekday=6, hour=2)
    first = next_send_after(autumn, utc(2026, 10, 24))
    assert first == utc(2026, 10, 25, 0)
    assert next_send_after(autumn, first) == utc(2026, 11, 1, 1)


@pytest.mark.parametrize(("day", "period"), [
    (date(2026, 3, 1), (date(2026, 2, 1), date(2026, 2, 28))),
    (date(2024, 3, 31), (date(2024, 2, 1), date(2024, 2, 29))),
    (date(2026, 1, 15), (date(2025, 12, 1), date(2025, 12, 31))),
])
def test_the_month_before(day, period):
    assert period_before("monthly", day) == period


def test_a_stored_zone_no_longer_known_falls_back_to_utc():
    odd = schedule(zone="Mars/Olympus_Mons", frequency="monthly", day_of_month=3, hour=0)
    assert next_send_after(odd, utc(2026, 5, 1)) == utc(2026, 5, 3)

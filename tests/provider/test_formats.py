"""Dates in the provider's shapes: MM/DD/YYYY always four digits of year, whatever the year."""

import datetime as dt

import pytest

from provider.formats import format_date, format_datetime


@pytest.mark.parametrize(("value", "text"), [
    (dt.date(2026, 3, 7), "03/07/2026"),
    (dt.date(438, 7, 17), "07/17/0438"),  # strftime would write 438
    (dt.date(5, 1, 2), "01/02/0005"),
    (dt.datetime(2026, 3, 7, 23, 59), "03/07/2026"),
    ("03/07/2026", "03/07/2026"),
])
def test_format_date(value, text):
    assert format_date(value) == text


def test_format_datetime_of_a_day_covers_it_whole():
    assert format_datetime(dt.date(438, 7, 17)) == "07/17/0438 00:00:00"
    assert format_datetime(dt.date(438, 7, 17), end_of_day=True) == "07/17/0438 23:59:59"
    assert format_datetime(dt.datetime(2026, 1, 2, 3, 4, 5)) == "01/02/2026 03:04:05"


def test_a_text_of_another_shape_is_refused():
    with pytest.raises(ValueError):
        format_date("2026-03-07")

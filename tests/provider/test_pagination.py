"""Pagination helpers yield pages and never request past the 100000-record window."""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from provider import MAX_WINDOW, PageWindowExceeded
from provider.pagination import check_window

from .helpers import url

DAY = dt.date(2024, 1, 1)


def query_of(request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}


def metrics_server(stub, total: int | None):
    """Serve competitor metrics; ``total=None`` means endless full pages."""
    windows: list[tuple[int, int]] = []

    def reply(request):
        query = query_of(request)
        start, size = int(query["startIndex"]), int(query["pageSize"])
        windows.append((start, size))
        end = start + size if total is None else min(start + size, total)
        rows = [{"competitorLocation": f"loc-{i}", "reviewCount": i} for i in range(start, end)]
        return 200, {}, json.dumps(rows)

    stub.add_callback("POST", url("/v1/competitors/review/metrics"), callback=reply)
    return windows


def test_window_check():
    check_window(99_000, 1_000)  # exactly the window is accepted
    with pytest.raises(PageWindowExceeded):
        check_window(99_000, 1_001)
    with pytest.raises(ValueError):
        check_window(-1, 10)
    with pytest.raises(ValueError):
        check_window(0, 0)


def test_competitor_metrics_pages_until_a_short_page(client, stub):
    windows = metrics_server(stub, total=60)

    pages = list(client.iter_competitor_review_metrics(900, from_date=DAY, to_date=DAY))

    assert [len(page) for page in pages] == [25, 25, 10]
    assert windows == [(0, 25), (25, 25), (50, 25)]
    assert pages[2][-1].competitor_location == "loc-59"


def test_competitor_metrics_stop_at_the_window(client, stub, caplog):
    windows = metrics_server(stub, total=None)

    pages = client.iter_competitor_review_metrics(
        900, from_date=DAY, to_date=DAY, start_index=99_950, page_size=30
    )
    collected = list(pages)

    assert windows == [(99_950, 30), (99_980, 20)]  # the last page is clamped to the window
    assert all(start + size <= MAX_WINDOW for start, size in windows)
    assert [len(page) for page in collected] == [30, 20]
    assert pages.truncated is True
    assert "window" in caplog.text


def test_single_page_beyond_the_window_is_refused_before_sending(client, stub):
    metrics_server(stub, total=None)

    with pytest.raises(PageWindowExceeded):
        client.competitor_review_metrics(900, from_date=DAY, to_date=DAY, start_index=99_990)
    with pytest.raises(PageWindowExceeded):
        client.get_qna(1, start_index=99_999, page_size=2)
    with pytest.raises(PageWindowExceeded):
        client.survey_responses(
            1, business_number=2, start_date=DAY, end_date=DAY, page=4_000, size=25
        )
    with pytest.raises(PageWindowExceeded):
        client.iter_qna(1, start_index=100_000)

    assert len(stub.calls) == 0
    client.competitor_review_metrics(900, from_date=DAY, to_date=DAY, start_index=99_975)
    assert len(stub.calls) == 1


def qna_server(stub, total: int):
    bodies: list[dict[str, int]] = []

    def reply(request):
        body = json.loads(request.body)
        bodies.append(body)
        start, size = body["startIndex"], body["pageSize"]
        entries = [{"questionId": i} for i in range(start, min(start + size, total))]
        return 200, {}, json.dumps({"totalCount": total, "questionsAndAnswers": entries})

    stub.add_callback("POST", url("/v1/qna/get"), callback=reply)
    return bodies


def test_qna_pages_until_total_count(client, stub):
    bodies = qna_server(stub, total=7)

    pages = list(client.iter_qna(77, page_size=3))

    assert [[q.question_id for q in page.questions] for page in pages] == [
        [0, 1, 2],
        [3, 4, 5],
        [6],
    ]
    assert bodies == [
        {"startIndex": 0, "pageSize": 3},
        {"startIndex": 3, "pageSize": 3},
        {"startIndex": 6, "pageSize": 3},
    ]


def test_qna_stops_at_the_window(client, stub):
    bodies = qna_server(stub, total=1_000_000)

    pages = client.iter_qna(77, start_index=99_990, page_size=25)
    collected = list(pages)

    assert bodies == [{"startIndex": 99_990, "pageSize": 10}]
    assert len(collected[0].questions) == 10
    assert pages.truncated is True


def test_qna_with_nothing_yields_no_page(client, stub):
    qna_server(stub, total=0)

    pages = client.iter_qna(77)

    assert list(pages) == []
    assert pages.truncated is False


def survey_server(stub, pages_available: int | None):
    requested: list[tuple[int, int]] = []

    def reply(request):
        query = query_of(request)
        page, size = int(query["page"]), int(query["size"])
        requested.append((page, size))
        has_next = pages_available is None or page + 1 < pages_available
        rows = [{"responseId": page * size + i} for i in range(min(size, 3))]
        body = {"responseList": rows, "pageNo": page, "pageSize": size, "hasNext": has_next}
        return 200, {}, json.dumps(body)

    stub.add_callback("POST", url("/v1/survey/ext/list/responses/31"), callback=reply)
    return requested


def test_survey_pages_while_has_next(client, stub):
    requested = survey_server(stub, pages_available=3)

    pages = list(
        client.iter_survey_responses(31, business_number=900, start_date=DAY, end_date=DAY, size=3)
    )

    assert requested == [(0, 3), (1, 3), (2, 3)]
    assert [p.responses[0].response_id for p in pages] == [0, 3, 6]


def test_survey_stops_before_a_page_crossing_the_window(client, stub):
    requested = survey_server(stub, pages_available=None)

    pages = client.iter_survey_responses(
        31, business_number=900, start_date=DAY, end_date=DAY, size=30_000
    )
    list(pages)

    assert requested == [(0, 30_000), (1, 30_000), (2, 30_000)]
    assert all((page + 1) * size <= MAX_WINDOW for page, size in requested)
    assert pages.truncated is True

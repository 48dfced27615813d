"""Iterating paged operations without going past the provider's 100000-record window.

The provider rejects any request whose start index plus page size exceeds 100000 (exactly
100000 is accepted). The iterators here clamp the last page to end at the window (offset-based
operations) or stop before a page that would cross it (page-numbered operations), and never
send a request beyond it.

They yield whole pages so that the caller can write each page in bulk. The returned
``Pages`` object records whether the window cut the results short (``truncated``): a mirror
must then not treat rows it did not see as removed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

logger = logging.getLogger(__name__)

MAX_WINDOW = 100_000

PageT = TypeVar("PageT")


class PageWindowExceeded(ValueError):
    """A request would read past the 100000-record window; it is refused before sending."""


def check_window(start: int, size: int) -> None:
    """Refuse a page request the provider would reject for its position or size."""
    if start < 0:
        raise ValueError(f"start index must be >= 0, got {start}")
    if size < 1:
        raise ValueError(f"page size must be >= 1, got {size}")
    if start + size > MAX_WINDOW:
        raise PageWindowExceeded(
            f"start {start} + size {size} exceeds the provider's window of {MAX_WINDOW} records"
        )


class Pages(Generic[PageT]):
    """An iterator of pages; ``truncated`` is true once it stopped at the window with more left."""

    def __init__(self, pages: Iterator[PageT]) -> None:
        self._pages = pages
        self.truncated = False

    def __iter__(self) -> Pages[PageT]:
        return self

    def __next__(self) -> PageT:
        return next(self._pages)

    def _stop_at_window(self, what: str) -> None:
        self.truncated = True
        logger.warning("%s: more results than the %d-record window; stopped", what, MAX_WINDOW)


def offset_pages(
    fetch: Callable[[int, int], PageT],
    *,
    count_of: Callable[[PageT], int],
    total_of: Callable[[PageT], int | None] = lambda page: None,
    start: int,
    page_size: int,
    what: str,
) -> Pages[PageT]:
    """Pages of an operation addressed by start index and page size.

    ``fetch(start, size)`` returns one page. Iteration ends at a short or empty page, when the
    reported total (if ``total_of`` gives one) is reached, or at the window. The last page is
    clamped to end at the window, so only a start at or past it is refused.
    """
    if page_size < 1:
        raise ValueError(f"page size must be >= 1, got {page_size}")
    check_window(start, 1)

    def generate() -> Iterator[PageT]:
        offset = start
        while True:
            size = min(page_size, MAX_WINDOW - offset)
            page = fetch(offset, size)
            received = count_of(page)
            if received:
                yield page
            offset += received
            total = total_of(page)
            if received < size and total is None:
                return
            if received == 0 or (total is not None and offset >= total):
                return
            if offset >= MAX_WINDOW:
                pages._stop_at_window(what)
                return

    pages: Pages[PageT] = Pages(generate())
    return pages


def numbered_pages(
    fetch: Callable[[int, int], PageT],
    *,
    count_of: Callable[[PageT], int],
    has_next_of: Callable[[PageT], bool],
    first_page: int,
    page_size: int,
    what: str,
) -> Pages[PageT]:
    """Pages of an operation addressed by page number (0-based) and page size.

    ``fetch(page_number, size)`` returns one page. Iteration ends when the page says it has no
    next one, at an empty page, or before a page that would cross the window (the size cannot be
    clamped here: that would shift the page boundaries).
    """
    check_window(first_page * page_size, page_size)

    def generate() -> Iterator[PageT]:
        number = first_page
        while True:
            page = fetch(number, page_size)
            received = count_of(page)
            if received:
                yield page
            if received == 0 or not has_next_of(page):
                return
            number += 1
            if (number + 1) * page_size > MAX_WINDOW:
                pages._stop_at_window(what)
                return

    pages: Pages[PageT] = Pages(generate())
    return pages

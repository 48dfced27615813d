"""Helpers for tests that call the embedded sandbox through pytest-django's live server."""

import gc
import threading


def join_live_server_requests(timeout: float = 5) -> None:
    """Wait for the live server's request threads before the test hands its database back.

    A request the client gave up on is still being served, and a provider error keeps its HTTP
    connection open until the exception's reference cycle is collected: collect first.
    """
    gc.collect()
    for thread in threading.enumerate():
        if "process_request_thread" in thread.name:
            thread.join(timeout=timeout)

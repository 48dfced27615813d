
import pytest

from tests.live import join_live_server_requests


@pytest.fixture
def finish_live_requests():
    """Let the live server finish closing its requests before the database is handed back.

    A provider error keeps its HTTP connection open until the exception's reference cycle is
    collected, so collect first."""
    yield
    join_live_server_requests()


"""The client over a real local HTTP server: timeouts, refused connections, logging, and the
key never showing up in reprs, exception texts, tracebacks or logs."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from provider import AuthError, ProviderClient, RateLimited, Transient

from .helpers import API_KEY, SleepRecorder


@dataclass(frozen=True)
class MaskedSecret:
    """Shaped like the portal's Secret: the key in ``.value``, a masked repr."""

    value: str

    def __repr__(self) -> str:
        return "Secret(****)"


class ProviderStub(BaseHTTPRequestHandler):
    received: list[tuple[str, str, str | None]] = []

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        return

    def _reply(self, status: int, body: object | None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (the timeout tests)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        path = self.path.split("?")[0]
        self.received.append((self.command, path, self.headers.get("x-api-key")))
        if "/slow/" in path:
            time.sleep(0.6)
            self._reply(200, {"media": []})
        elif path.endswith("/echo/media/get"):
            key = self.headers.get("x-api-key")
            self._reply(401, {"code": 1161, "message": f"Invalid API key {key}"})
        elif path.endswith("/limited/media/get"):
            self._reply(429, {"code": 89, "message": "Rate limit exceeded"})
        elif path.endswith("/broken/media/get"):
            self._reply(500, {"errorCode": 500, "errorMessage": "boom"})
        elif path.endswith("/create"):
            self._reply(200, None)
        else:
            self._reply(200, {"media": [{"mediaId": "m-1"}]})

    do_GET = do_POST = do_DELETE = _handle


@pytest.fixture
def server() -> Iterator[str]:
    ProviderStub.received = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ProviderStub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/sandbox"
    finally:
        httpd.shutdown()
        httpd.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_round_trip_with_a_masked_secret(server):
    with ProviderClient(server, MaskedSecret(API_KEY)) as client:
        assert client.get_media(1)[0].media_id == "m-1"
        assert client.create_listing(1, {"businessInfo": {}}) is None

    assert ProviderStub.received == [
        ("GET", "/sandbox/v1/business/1/media/get", API_KEY),
        ("POST", "/sandbox/v1/listing/1/create", API_KEY),
    ]


def test_write_read_timeout_is_not_retried(server):
    sleeps = SleepRecorder()
    client = ProviderClient(server, API_KEY, timeout=(1, 0.2), sleep=sleeps)

    with pytest.raises(Transient) as excinfo:
        client.add_media("slow", [{"url": "https://x/p.jpg"}])

    assert excinfo.value.outcome_unknown is True
    assert len(ProviderStub.received) == 1
    assert sleeps == []


def test_read_timeout_of_a_read_is_retried(server):
    sleeps = SleepRecorder()
    client = ProviderClient(server, API_KEY, timeout=(1, 0.2), sleep=sleeps, max_retries=1)

    with pytest.raises(Transient) as excinfo:
        client.get_media("slow")

    assert excinfo.value.outcome_unknown is False
    assert len(ProviderStub.received) == 2
    assert len(sleeps) == 1


def test_refused_connection_is_retried_even_for_a_write():
    sleeps = SleepRecorder()
    client = ProviderClient(f"http://127.0.0.1:{free_port()}", API_KEY, sleep=sleeps, max_retries=2)

    with pytest.raises(Transient) as excinfo:
        client.create_listing(1, {})

    assert excinfo.value.outcome_unknown is False
    assert len(sleeps) == 2
    assert client.stats.requests == 3


def test_key_never_leaks(server, caplog):
    caplog.set_level(logging.DEBUG)
    client = ProviderClient(
        server, MaskedSecret(API_KEY), sleep=SleepRecorder(), max_retries=1, timeout=(1, 0.2)
    )
    dead = ProviderClient(f"http://127.0.0.1:{free_port()}", API_KEY, max_retries=0)
    errors: list[BaseException] = []

    client.get_media(1)
    for call, expected in [
        (lambda: client.get_media("echo"), AuthError),
        (lambda: client.get_media("limited"), RateLimited),
        (lambda: client.get_media("broken"), Transient),
        (lambda: client.add_media("slow", []), Transient),
        (lambda: dead.get_media(1), Transient),
    ]:
        with pytest.raises(expected) as excinfo:
            call()
        errors.append(excinfo.value)

    texts = [repr(client), repr(dead), str(client.stats), caplog.text]
    for error in errors:
        texts += [str(error), repr(error), "".join(traceback.format_exception(error))]
    assert all(API_KEY not in text for text in texts)
    assert "Invalid API key ***" in str(errors[0])  # the echoed key was redacted
    assert "provider GET /v1/business/1/media/get -> 200" in caplog.text
    assert any(r.levelno == logging.DEBUG and r.name == "provider.client" for r in caplog.records)

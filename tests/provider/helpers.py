"""Shared constants and helpers of the provider client tests."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import responses

BASE_URL = "http://provider.test/sandbox"
API_KEY = "pk_live_Zq8sV3xN5mT1wR7y"


class SleepRecorder(list[float]):
    """Stands in for time.sleep: records the delays instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def url(path: str) -> str:
    return BASE_URL + path


def sent(stub: responses.RequestsMock, index: int = -1) -> dict[str, Any]:
    """The method, path, query, headers and JSON body of a request the client sent."""
    request = stub.calls[index].request
    parts = urlsplit(request.url)
    body = request.body
    if isinstance(body, bytes):
        body = body.decode()
    return {
        "method": request.method,
        "path": parts.path.removeprefix(urlsplit(BASE_URL).path),
        "query": {k: v[0] if len(v) == 1 else v for k, v in parse_qs(parts.query).items()},
        "headers": request.headers,
        "json": json.loads(body) if body else None,
    }

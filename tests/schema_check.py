"""Every reply of the API that a test receives is checked against the published schema.

`check_replies()` wraps Django's test client (and so DRF's `APIClient`, which goes through it):
each answer to a path under /api/v1/ is validated with openapi-core against the schema that
/api/schema/ serves, status, headers and body, and a test whose reply leaves the schema fails
with what is wrong and where. tests/conftest.py turns it on for the whole suite.
"""

from __future__ import annotations

import functools
import json
from contextlib import contextmanager

from django.test.client import Client
from openapi_core import Config, OpenAPI
from openapi_core.datatypes import RequestParameters
from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound
from werkzeug.datastructures import Headers, ImmutableMultiDict

API_PREFIX = "/api/v1/"
# Not operations of the schema: what the server answers for any URL it has.
UNDESCRIBED_METHODS = {"options", "head"}
# What a method the URL does not take is answered: authentication, the access policy and the
# throttle run before the method is looked at.
NOT_AN_OPERATION = {401, 403, 404, 405, 429}


class ReplyOutsideSchema(AssertionError):
    """An API reply that the published schema does not describe."""


@functools.cache
def published_schema() -> dict:
    """The schema as /api/schema/ serves it (generated once per test run)."""
    from drf_spectacular.generators import SchemaGenerator

    # Through JSON, as a client reads it: no lazy strings or tuples left.
    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True),
                                 default=str))


def _file_as_text(value: bytes, **parameters: str) -> str:
    """A file's bytes as a string of the same length: JSON Schema's `string` (with the binary
    format the schema gives files) does not cover Python's bytes, which openapi-core reads."""
    return value.decode("latin-1")


def _file_media_types(schema: dict) -> set[str]:
    return {media_type
            for methods in schema["paths"].values() for operation in methods.values()
            for reply in operation.get("responses", {}).values()
            for media_type, entry in (reply.get("content") or {}).items()
            if (entry.get("schema") or {}).get("format") == "binary"}


@functools.cache
def published_openapi() -> OpenAPI:
    schema = published_schema()
    config = Config(extra_media_type_deserializers=dict.fromkeys(_file_media_types(schema),
                                                                 _file_as_text))
    return OpenAPI.from_dict(schema, config=config)


class _Request:
    """The request of a test client's reply, as openapi-core reads one."""

    def __init__(self, request):
        self.host_url = f"{request.scheme}://{request.get_host()}"
        self.path = request.path
        self.method = request.method.lower()
        self.content_type = request.META.get("CONTENT_TYPE", "")
        self.body = b""  # replies are checked, not requests (tests send wrong ones on purpose)
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(request.GET), header=Headers(request.headers.items()),
            cookie=ImmutableMultiDict(request.COOKIES), path={})


class _Response:
    def __init__(self, response):
        if response.streaming:
            data = b"".join(response.streaming_content)
            response.streaming_content = [data]  # still readable by the test
        else:
            data = response.content
        self.data = data
        self.status_code = response.status_code
        self.content_type = response.get("Content-Type", "")
        self.headers = Headers(response.headers.items())


def _explain(error: Exception) -> str:
    lines, seen = [], error
    while seen is not None:
        lines.append(f"{type(seen).__name__}: {seen}"[:800])
        for schema_error in getattr(seen, "schema_errors", None) or ():
            where = "/".join(str(part) for part in schema_error.absolute_path) or "(the body)"
            lines.append(f"  at {where}: {schema_error.message}")
        seen = seen.__cause__ or seen.__context__
    return "\n".join(lines)


def check_reply(response) -> None:
    """Raise ReplyOutsideSchema when `response`, a test client's reply, is an API reply that
    the published schema does not describe."""
    request = getattr(response, "wsgi_request", None)
    if request is None or not request.path.startswith(API_PREFIX):
        return
    if request.method.lower() in UNDESCRIBED_METHODS:
        return
    try:
        published_openapi().validate_response(_Request(request), _Response(response))
    except Exception as error:  # every finding of openapi-core is a reply out of schema
        if isinstance(error, PathNotFound) and response.status_code == 404:
            return  # no such URL: the URL configuration's 404
        if isinstance(error, OperationNotFound) and response.status_code in NOT_AN_OPERATION:
            return  # a method the URL does not take: refused before or as a 405
        body = (b"" if response.streaming else response.content)[:600]
        raise ReplyOutsideSchema(
            f"{request.method} {request.get_full_path()} answered {response.status_code}, "
            f"which the published schema does not describe:\n{_explain(error)}\n"
            f"body: {body!r}") from None


@contextmanager
def check_replies():
    """Validate every API reply of Django's test client (and DRF's) while inside."""
    original = Client.request

    def request(self, **kwargs):
        response = original(self, **kwargs)
        check_reply(response)
        return response

    Client.request = request
    try:
        yield
    finally:
        Client.request = original

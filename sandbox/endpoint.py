"""What every provider operation does before and after its own work.

Order: method check, key (401), added latency, rate limit (429), injected failure (500), then
the operation. Any ``ApiError`` becomes the provider's ``{"code", "message"}`` reply; anything
unexpected becomes a logged HTTP 500 with the same shape, never an HTML page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from sandbox.auth import authenticate
from sandbox.errors import ApiError, bad_input, error_response
from sandbox.faults import add_latency, maybe_fail
from sandbox.inputs import has_nul
from sandbox.ratelimit import enforce_rate_limit

logger = logging.getLogger(__name__)

ProviderView = Callable[..., HttpResponse]


def provider_endpoint(
    *methods: str, missing_key_status: int = 401
) -> Callable[[ProviderView], Callable[..., HttpResponse]]:
    """Wrap ``view(request, partner, **path_params)`` as a provider operation.

    ``missing_key_status``: the HTTP status the provider files its 1167 under for this one.
    """

    def decorate(view: ProviderView) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def endpoint(request: HttpRequest, **path_params: str) -> HttpResponse:
            if request.method not in methods:
                reply = error_response(405, 405, f"Method {request.method} not allowed")
                reply["Allow"] = ", ".join(methods)
                return reply
            try:
                refuse_nul(request, path_params)
                partner = authenticate(request, missing_key_status=missing_key_status)
                add_latency(partner)
                enforce_rate_limit(partner)
                maybe_fail(partner)
                return view(request, partner, **path_params)
            except ApiError as error:
                return error.response()
            except Exception:
                logger.exception("sandbox operation %s failed", view.__name__)
                return error_response(500, 500, "Internal server error")

        return endpoint

    return decorate


def refuse_nul(request: HttpRequest, path_params: dict[str, str]) -> None:
    """NUL in a path or query value can reach no stored row, and PostgreSQL rejects it."""
    query = [*request.GET.keys(), *(v for values in request.GET.lists() for v in values[1])]
    if has_nul([*path_params.values(), *query]):
        raise bad_input("Path and query parameters must not contain NUL characters")


def empty_ok() -> HttpResponse:
    """HTTP 200 with an empty body: the reply of create listing, hierarchy and Q&A deletion."""
    # No Content-Type claim of JSON: there is no JSON document to parse.
    return HttpResponse(status=200, content=b"", content_type="text/plain; charset=utf-8")

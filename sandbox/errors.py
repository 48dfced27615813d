"""The provider's error replies: always ``{"code": int, "message": str}``.

Where the provider documents an error, the sandbox answers it with the provider's HTTP status,
body code and message word for word (docs/provider-interface.md, "Errors"), so that a client
that works here meets nothing new at the provider. Messages the provider does not document
(the input errors under body code 400) are the sandbox's own and name the field concerned.
"""

from __future__ import annotations

from django.http import JsonResponse

# Body code of generic input errors (malformed JSON, wrong types, missing fields). The provider
# uses the body code 400 for its category-list input errors; the sandbox uses it for all of them.
INPUT_ERROR = 400


class ApiError(Exception):
    """Raised anywhere below a view; the endpoint wrapper turns it into the error reply."""

    def __init__(
        self, http_status: int, code: int, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def response(self) -> JsonResponse:
        reply = error_response(self.http_status, self.code, self.message)
        for name, value in self.headers.items():
            reply[name] = value
        return reply


def error_response(http_status: int, code: int, message: str) -> JsonResponse:
    return JsonResponse({"code": code, "message": message}, status=http_status)


def bad_input(message: str) -> ApiError:
    return ApiError(400, INPUT_ERROR, message)


# The provider files 1011 under 404 on most operations and under 401 on add media, get media
# and update hierarchy; those pass their status.
UNKNOWN_BUSINESS = (1011, "Business id is invalid")


def unknown_business(http_status: int = 404) -> ApiError:
    return ApiError(http_status, *UNKNOWN_BUSINESS)


def invalid_window() -> ApiError:
    return ApiError(400, 1164, "Invalid result count value")

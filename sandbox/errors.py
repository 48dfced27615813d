"""The provider's error replies: always ``{"code": int, "message": str}``."""

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


def unknown_business(number: object) -> ApiError:
    return ApiError(404, 1011, f"Business id is invalid: {number}")


def invalid_window() -> ApiError:
    return ApiError(400, 1164, "Invalid result count value")

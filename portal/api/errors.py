"""One error shape for the whole API: {"code", "message", "fields"}, plus "provider_code" when
the provider refused something."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.views import exception_handler

from portal.exceptions import ProviderUnavailable


class ProviderRejected(exceptions.APIException):
    """The provider refused a request made on the client's behalf."""

    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "provider_rejected"

    def __init__(self, message: str, *, provider_code: int | None = None, field: str = ""):
        super().__init__(message)
        self.provider_code = provider_code
        self.field = field


class ProviderUnavailableError(exceptions.APIException):
    """The provider could not answer a call made on the client's behalf; try again later."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "provider_unavailable"
    default_detail = "The provider cannot answer right now; try again later."


class Conflict(exceptions.APIException):
    """The object is not in a state that allows this right now (409); pass `code` to name the
    state (`busy`, `unavailable`...)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The resource is not in a state that allows this."


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            fields.update(_flatten(value, name))
    elif isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            fields[prefix or "non_field_errors"] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                fields.update(_flatten(item, f"{prefix}[{index}]"))
    else:
        fields[prefix or "non_field_errors"] = [str(detail)]
    return fields


def api_exception_handler(exc, context):
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(f"The request body is over the limit of "
                              f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.")
    elif isinstance(exc, ProviderUnavailable):
        exc = (ProviderRejected(str(exc), provider_code=exc.code) if exc.refused
               else ProviderUnavailableError(str(exc)))
    elif isinstance(exc, DjangoValidationError):
        # Services validate and raise Django's ValidationError, naming the fields; the API
        # answers it like a serializer's.
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages})
    elif isinstance(exc, TooManyFieldsSent):
        exc = exceptions.ParseError(f"More than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} "
                                    "fields in the request body.")
    response = exception_handler(exc, context)
    if response is None:
        return None
    body = {"code": "error", "message": "", "fields": {}}
    if isinstance(exc, exceptions.ValidationError):
        body["code"] = "invalid"
        body["fields"] = _flatten(exc.detail)
        first = next(iter(body["fields"].items()), ("", [""]))
        body["message"] = (f"{first[0]}: {first[1][0]}" if first[0] != "non_field_errors"
                           else first[1][0]) or "Invalid input."
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        body["code"] = codes if isinstance(codes, str) else exc.default_code
        body["message"] = str(exc.detail)
    if isinstance(exc, ProviderRejected):
        body["provider_code"] = exc.provider_code
        if exc.field:
            body["fields"] = {exc.field: [str(exc.detail)]}
    response.data = body  # keeps DRF's headers (WWW-Authenticate, Retry-After, Allow)
    return response


@extend_schema_serializer(component_name="Error")
class ApiErrorSerializer(serializers.Serializer):
    """The shape of every error answer of the API."""

    api_description = __doc__

    code = serializers.CharField(help_text="What went wrong, e.g. invalid, not_found, "
                                           "permission_denied, throttled, provider_rejected.")
    message = serializers.CharField(allow_blank=True)
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   help_text="Messages per input field (dotted paths).")
    provider_code = serializers.IntegerField(required=False, allow_null=True,
                                             help_text="The provider's code, when it refused.")


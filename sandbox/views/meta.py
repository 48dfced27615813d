"""Unauthenticated helpers: the OpenAPI document and JSON replies for unknown paths."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from sandbox.errors import error_response
from sandbox.openapi import openapi_document


def openapi(request: HttpRequest) -> HttpResponse:
    base = request.build_absolute_uri("/sandbox").rstrip("/")
    return JsonResponse(openapi_document(server_url=base), json_dumps_params={"indent": 1})


@csrf_exempt
def not_found(request: HttpRequest, unknown_path: str = "") -> HttpResponse:
    return error_response(404, 404, f"No operation at {request.path}")

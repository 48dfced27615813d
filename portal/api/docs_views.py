"""The Redoc page, with Redoc's bundle served by the page itself (`?script`, as the Swagger UI
page serves its start-up script) so that the page loads nothing from another site."""

from __future__ import annotations

from functools import cache

from django.contrib.staticfiles import finders
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
# Redoc's sidebar shows the vendor's logo from the vendor's site, which the Content Security
# Policy refuses. An empty data: URL fails to load instead, and Redoc then hides the image.
REDOC_REMOTE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
REDOC_NO_LOGO = "data:,"


@cache
def redoc_bundle() -> bytes:
    path = finders.find(REDOC_BUNDLE)
    if path is None:
        raise FileNotFoundError(REDOC_BUNDLE)
    with open(path, "rb") as bundle:
        return bundle.read().replace(REDOC_REMOTE_LOGO.encode(), REDOC_NO_LOGO.encode())


class RedocView(SpectacularRedocView):
    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        if "script" in request.GET:
            response = HttpResponse(redoc_bundle(),
                                    content_type="application/javascript; charset=utf-8")
            response["Cache-Control"] = "public, max-age=86400"
            return response
        return super().get(request, *args, **kwargs)

    def _redoc_standalone(self):
        return f"{self.request.path}?script"

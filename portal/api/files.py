"""Operations whose reply is a file (a PDF, a CSV or Excel sheet): the file as the reply, in
its own media type or as `application/octet-stream` for a client that asks for bytes, and
errors still in the API's JSON shape."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer

OCTET_STREAM = "application/octet-stream"


class FileReplyMixin:
    """For an API view that answers a file: `self.file_reply(content, content_type, name)`.
    The schema lists both media types of the reply (portal.api.replies)."""

    def perform_content_negotiation(self, request, force=False):
        # The reply's type is the file's, not a renderer's: errors answer JSON.
        renderer = JSONRenderer()
        return renderer, renderer.media_type

    def file_reply(self, content: bytes, content_type: str, filename: str) -> HttpResponse:
        request = self.request
        as_bytes = request.accepts(OCTET_STREAM) and not request.accepts(content_type)
        response = HttpResponse(content, content_type=OCTET_STREAM if as_bytes else content_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        response["Cache-Control"] = "private, no-store"
        return response

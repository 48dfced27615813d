"""The media API: a business's gallery, and adding a photo or video (queued in the outbox)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from accounts.api.base import BusinessAPIMixin, IdempotentCreateMixin, locations_only
from media_app import selectors
from media_app.api.serializers import (
    MediaAddSerializer,
    MediaFilterSerializer,
    MediaItemSerializer,
)
from media_app.services import media_add
from outbox.api.serializers import ChangeSerializer
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY


@extend_schema(tags=["media"])
class BusinessMediaList(IdempotentCreateMixin, BusinessAPIMixin, generics.ListCreateAPIView):
    """A business's photos and videos, newest first; adding one queues it for the provider."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "url": "An http(s) address with a host name.",
        "description": "The provider's media rules.",
        "category": "The provider's media rules.",
    }}

    business_types = locations_only("Photos and videos")
    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = MediaItemSerializer
    filter_backends: list = []

    def get_serializer_class(self):
        if self.request is not None and self.request.method == "POST":
            return MediaAddSerializer
        return MediaItemSerializer

    def get_tenant_queryset(self):
        business = self.get_business()
        filters = MediaFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return selectors.media_list(tenant=self.tenant, business=business,
                                    **filters.validated_data)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return MediaItemSerializer.Meta.model.unscoped.none()
        return self.get_tenant_queryset()

    @extend_schema(summary="List a business's media", parameters=[MediaFilterSerializer],
                   responses={200: MediaItemSerializer(many=True),
                              **{c: ERRORS[c] for c in (400, 401, 404, 429)}})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Add a photo or video",
        description="Checks the provider's media rules, then queues the upload: the answer is "
                    "202 with the queued change. The item appears in the media list once the "
                    "provider has accepted it.",
        parameters=[IDEMPOTENCY_KEY], request=MediaAddSerializer,
        responses={202: ChangeSerializer, **ERRORS})
    def post(self, request, *args, **kwargs):
        business = self.get_business()

        def create():
            body = MediaAddSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = body.validated_data
            entry = media_add(tenant=self.tenant, actor=request.user, business=business,
                              url=data["url"], category=data["category"],
                              description=data["description"], media_format=data["media_format"])
            return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED)

        return self.idempotent(request, create)

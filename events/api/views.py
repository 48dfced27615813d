"""The events API: the events the provider delivered, and live updates on or off."""

from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from accounts.api.base import TenantAPIMixin
from events import selectors, services
from events.api.serializers import EventReceiverSerializer, ProviderEventSerializer
from events.filtersets import ProviderEventFilterSet
from portal.api.errors import ApiErrorSerializer, Conflict

PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The id of the event.")


@extend_schema(tags=["events"], summary="Events the provider delivered, newest first",
               description="Each distinct delivery once; `deliveries` counts its copies.")
class ProviderEventList(TenantAPIMixin, generics.ListAPIView):
    serializer_class = ProviderEventSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = ProviderEventFilterSet

    def get_tenant_queryset(self):
        return selectors.provider_event_list(tenant=self.tenant,
                                                            membership=self.membership)


@extend_schema(tags=["events"], summary="One event and what the portal did with it",
               parameters=[PK])
class ProviderEventDetail(TenantAPIMixin, generics.RetrieveAPIView):
    serializer_class = ProviderEventSerializer

    def get_object(self):
        event = selectors.provider_event_get(tenant=self.tenant, pk=self.kwargs["pk"],
                                             membership=self.membership)
        if event is None:
            raise Http404("No such event.")
        return event


class EventReceiverView(TenantAPIMixin, generics.GenericAPIView):
    serializer_class = EventReceiverSerializer
    pagination_class = None

    def get_receiver(self):
        receiver = selectors.event_receiver_get(tenant=self.tenant)
        if receiver is None:
            raise Http404("Live updates were never turned on.")
        return receiver

    @extend_schema(tags=["events"],
                   summary="Live updates: on or off, and where events are delivered")
    def get(self, request, *args, **kwargs):
        return Response(self.get_serializer(self.get_receiver()).data)

    @extend_schema(
        tags=["events"], summary="Turn live updates on, or renew their credentials",
        description="Queues the subscriptions (see changes/); 409 when the portal has no "
                    "public address (PORTAL_PUBLIC_URL).", request=None,
        responses={202: EventReceiverSerializer,
                   409: OpenApiResponse(ApiErrorSerializer, description="No public address.")})
    def post(self, request, *args, **kwargs):
        try:
            receiver = services.event_receiver_enable(tenant=self.tenant, actor=request.user)
        except services.ReceiverUnavailable as exc:
            raise Conflict(str(exc), code="unavailable") from exc
        return Response(self.get_serializer(receiver).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(tags=["events"], summary="Turn live updates off", request=None,
                   responses={202: EventReceiverSerializer})
    def delete(self, request, *args, **kwargs):
        receiver = self.get_receiver()
        if receiver.disabled_at is not None:
            return Response(self.get_serializer(receiver).data, status=status.HTTP_202_ACCEPTED)
        receiver = services.event_receiver_disable(tenant=self.tenant, actor=request.user,
                                                   receiver=receiver)
        return Response(self.get_serializer(receiver).data, status=status.HTTP_202_ACCEPTED)

"""The bulk changes API: create one (a dry run, for now), read it and its locations."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from accounts.api.base import IdempotentCreateMixin, TenantAPIMixin
from bulk.api import serializers as s
from bulk.selectors import bulk_change_get, bulk_change_item_list, bulk_change_list
from bulk.services import bulk_change_create
from portal.api.docs import IDEMPOTENCY_KEY, PK, READ_ERRORS, WRITE_ERRORS

CREATE_EXAMPLE = OpenApiExample(
    "Monday hours of a brand's locations, rehearsed",
    value={"businesses": {"node": 810000001},
           "set": {"additionalInfo": {"hoursOfOperations": [
               {"day": 0, "isOpen": 1,
                "workingHours": [{"startHour": 28800, "endHour": 64800}]}]}},
           "lists": "replace", "waves": [5, 50], "dry_run": True},
    request_only=True)


class BulkChangeList(IdempotentCreateMixin, TenantAPIMixin, generics.ListAPIView):
    """Bulk changes of listings, newest first; POST makes one and answers its dry run."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = s.BulkChangeSerializer

    def get_tenant_queryset(self):
        return bulk_change_list(tenant=self.tenant, membership=self.membership)

    @extend_schema(
        summary="Make a bulk change and its dry run",
        description="Checks the change on every chosen location against its last accepted "
                    "listing and answers the counts: `will_change`, `unchanged` and `invalid` "
                    "(breaks a rule of the listing editor). Read each location's result in "
                    "`items/`. Nothing is sent to the provider. A wrong body is a 400 whose "
                    "`fields` name the part at fault (`set.additionalInfo.hours`, `waves[0]`, "
                    "`businesses.numbers`, `businesses.filter.city`...).",
        request=s.BulkChangeCreateSerializer, parameters=[IDEMPOTENCY_KEY],
        examples=[CREATE_EXAMPLE], responses={201: s.BulkChangeSerializer, **WRITE_ERRORS})
    def post(self, request, *args, **kwargs):
        return self.idempotent(request, lambda: self._create(request))

    def _create(self, request):
        body = s.BulkChangeCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        change = bulk_change_create(tenant=self.tenant, actor=request.user,
                                    membership=self.membership, **body.validated_data)
        return Response(s.BulkChangeSerializer(change).data, status=status.HTTP_201_CREATED)


@extend_schema(summary="One bulk change: its state and counts", parameters=[PK],
               responses={200: s.BulkChangeSerializer, **READ_ERRORS})
class BulkChangeDetail(TenantAPIMixin, generics.RetrieveAPIView):
    serializer_class = s.BulkChangeSerializer

    def get_object(self):
        return bulk_change_get(tenant=self.tenant, membership=self.membership,
                               pk=self.kwargs["pk"])


@extend_schema(summary="The locations of a bulk change and what it does to each",
               parameters=[PK], responses={200: s.BulkChangeItemSerializer, **READ_ERRORS})
class BulkChangeItemList(TenantAPIMixin, generics.ListAPIView):
    serializer_class = s.BulkChangeItemSerializer

    def get_tenant_queryset(self):
        change = bulk_change_get(tenant=self.tenant, membership=self.membership,
                                 pk=self.kwargs["pk"])
        return bulk_change_item_list(tenant=self.tenant, change=change)

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import generics

from accounts.api.serializers import BusinessSerializer
from accounts.filtersets import BusinessFilterSet
from accounts.selectors import business_get, business_list, business_list_visible
from portal.api.base import TenantAPIMixin


class BusinessList(TenantAPIMixin, generics.ListAPIView):
    """Businesses the member may see, with the same filters and sorting as the portal's list."""

    serializer_class = BusinessSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = BusinessFilterSet

    def get_tenant_queryset(self):
        return (business_list_visible(tenant=self.tenant, membership=self.membership)
                .select_related("status_report", "parent"))


class BusinessDetail(TenantAPIMixin, generics.RetrieveAPIView):
    serializer_class = BusinessSerializer

    def get_object(self):
        return business_get(tenant=self.tenant, membership=self.membership,
                            remote_id=self.kwargs["remote_id"])


@extend_schema(summary="Direct children of a business in the hierarchy")
class BusinessChildren(TenantAPIMixin, generics.ListAPIView):
    serializer_class = BusinessSerializer

    def get_tenant_queryset(self):
        parent = business_get(tenant=self.tenant, membership=self.membership,
                              remote_id=self.kwargs["remote_id"])
        return (business_list(tenant=self.tenant, membership=self.membership)
                .filter(parent=parent).select_related("status_report", "parent")
                .order_by("name", "pk"))

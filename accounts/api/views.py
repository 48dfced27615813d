from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import generics

from accounts.api.base import BusinessAPIMixin, TenantAPIMixin
from accounts.api.serializers import (
    AuditEventSerializer,
    AuditFilterSerializer,
    BusinessSerializer,
)
from accounts.filtersets import BusinessFilterSet
from accounts.selectors import (
    business_list,
    business_list_visible,
    business_rows_in_order,
)
from accounts.settings_selectors import audit_event_search
from portal.api.docs import ERRORS, READ_ERRORS


class BusinessList(TenantAPIMixin, generics.ListAPIView):
    """Businesses the member may see, with the same filters and sorting as the portal's list."""

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = BusinessSerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = BusinessFilterSet

    def get_tenant_queryset(self):
        # The raw provider payloads are not part of the answer.
        return (business_list_visible(tenant=self.tenant, membership=self.membership)
                .select_related("status_report", "parent")
                .defer("raw", "status_report__raw", "parent__raw"))

    def paginate_queryset(self, queryset):
        # The page's ids first (a narrow query that indexes can answer), then its rows: a deep
        # offset then skips ids, not whole joined rows.
        ids = super().paginate_queryset(queryset.values_list("pk", flat=True))
        if ids is None:
            return None
        return business_rows_in_order(queryset=queryset, ids=ids)


class BusinessDetail(BusinessAPIMixin, generics.RetrieveAPIView):
    serializer_class = BusinessSerializer

    def get_object(self):
        return self.get_business()


@extend_schema(summary="Direct children of a business in the hierarchy")
class BusinessChildren(BusinessAPIMixin, generics.ListAPIView):
    serializer_class = BusinessSerializer

    def get_tenant_queryset(self):
        parent = self.get_business()
        return (business_list(tenant=self.tenant, membership=self.membership)
                .filter(parent=parent).select_related("status_report", "parent")
                .order_by("name", "pk"))


# -- audit events --------------------------------------------------------------------------------


@extend_schema(summary="The audit log (owners only), newest first",
               parameters=[AuditFilterSerializer],
               responses={200: AuditEventSerializer, **READ_ERRORS, 400: ERRORS[400],
                          403: ERRORS[403]})
class AuditEventList(TenantAPIMixin, generics.ListAPIView):
    serializer_class = AuditEventSerializer

    def get_tenant_queryset(self):
        filters = AuditFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return audit_event_search(tenant=self.tenant, **{
            key: value for key, value in filters.validated_data.items() if value})



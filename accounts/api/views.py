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
    ConnectionSerializer,
)
from accounts.filtersets import BusinessFilterSet
from accounts.provider_access import learned_rate
from accounts.selectors import (
    business_list,
    business_list_visible,
    business_rows_in_order,
)
from accounts.services import rate_limit_parse
from accounts.settings_selectors import audit_event_search
from accounts.settings_services import reseller_connection_update
from portal.api.docs import ERRORS, READ_ERRORS, WRITE_ERRORS


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
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {"date_to": "On or after `date_from`."}}
    serializer_class = AuditEventSerializer

    def get_tenant_queryset(self):
        filters = AuditFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return audit_event_search(tenant=self.tenant, **{
            key: value for key, value in filters.validated_data.items() if value})




# -- the provider connection -------------------------------------------------------------------


@extend_schema(summary="The provider connection (owners): its rate limit and names on the wire",
               responses={200: ConnectionSerializer, **READ_ERRORS, 403: ERRORS[403]})
class Connection(TenantAPIMixin, generics.RetrieveUpdateAPIView):
    """The reseller's provider connection. PATCH sets the rate limit (`auto`, learned from the
    provider's answers, or a known `COUNT/SECONDS`), the names spoken on the wire and the
    agency's time zone (the clock of its report schedules); the API key is entered in the
    portal's settings only and never shown here."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"patch": {
        "rate_limit": "`auto`, or COUNT/SECONDS such as 10/1.",
        "time_zone": "A name of the time zone database, such as Europe/Paris.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = ConnectionSerializer
    http_method_names = ["get", "patch", "options", "head"]

    def get_object(self):
        return self.tenant

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "learned_rate": learned_rate(self.tenant)}

    @extend_schema(responses={200: ConnectionSerializer, **WRITE_ERRORS})
    def patch(self, request, *args, **kwargs):
        return super().patch(request, *args, **kwargs)

    def perform_update(self, serializer):
        tenant = self.tenant
        data = serializer.validated_data
        auto, count, seconds = rate_limit_parse(data.get("rate_limit_text",
                                                         tenant.rate_limit_text))
        reseller_connection_update(
            tenant=tenant, actor=self.request.user,
            provider_base_url=tenant.provider_base_url, account_number=tenant.account_number,
            rate_limit_auto=auto, rate_limit_count=count or tenant.rate_limit_count,
            rate_limit_seconds=seconds or tenant.rate_limit_seconds,
            wire_dialect=data.get("wire_dialect", tenant.wire_dialect),
            time_zone=data.get("time_zone"))

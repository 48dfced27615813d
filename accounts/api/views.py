import django_filters
from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.reverse import reverse

from accounts.api.base import IdempotentCreateMixin, TenantAPIMixin
from accounts.api.serializers import (
    AuditEventSerializer,
    AuditFilterSerializer,
    BusinessSerializer,
    ChangeSerializer,
    HierarchySerializer,
    HierarchyWriteSerializer,
)
from accounts.filtersets import BusinessFilterSet
from accounts.selectors import (
    business_get,
    business_list,
    business_list_visible,
    business_rows_in_order,
    hierarchy_latest_update,
    hierarchy_level_list,
)
from accounts.services import hierarchy_update
from accounts.settings_selectors import audit_event_search
from listings.selectors import outbox_entry_list
from outbox.models import OutboxEntry
from outbox.services import outbox_retry
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY, PK, READ_ERRORS, REMOTE_ID
from portal.api.errors import ApiErrorSerializer, Conflict


class BusinessList(TenantAPIMixin, generics.ListAPIView):
    """Businesses the member may see, with the same filters and sorting as the portal's list."""

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


def _change_location(view, entry) -> str:
    return reverse("api_change_detail", args=[view.tenant.slug, entry.pk], request=view.request)


# -- hierarchy mapping ---------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        summary="A location's hierarchy mapping",
        description="The levels the provider last accepted, and the latest change sent for "
                    "them with its state.",
        parameters=[REMOTE_ID], responses={200: HierarchySerializer, **READ_ERRORS}),
    put=extend_schema(
        summary="Replace a location's hierarchy mapping",
        description="The provider replaces the whole mapping with exactly these levels, so "
                    "send every level. Answers 202 with the queued change; poll "
                    "`changes/{id}/` until it is accepted, rejected or failed.",
        parameters=[REMOTE_ID, IDEMPOTENCY_KEY], request=HierarchyWriteSerializer,
        responses={202: ChangeSerializer, **ERRORS},
        examples=[OpenApiExample("Two levels", request_only=True,
                                 value={"levels": {"Region": "West", "District": "Bay Area"}}),
                  OpenApiExample("Queued", response_only=True, status_codes=["202"],
                                 value={"id": 42, "kind": "hierarchy_update",
                                        "state": "pending", "finished": False,
                                        "summary": "Hierarchy: Region=West",
                                        "business_number": 1001, "provider_code": None,
                                        "provider_message": "", "attempts": 0,
                                        "created_at": "2026-01-01T12:00:00Z",
                                        "finished_at": None})]),
)
class BusinessHierarchy(TenantAPIMixin, IdempotentCreateMixin, generics.GenericAPIView):
    serializer_class = HierarchyWriteSerializer
    pagination_class = None

    def get_object(self):
        # DRF's own callers (the OPTIONS metadata) look the object up through this hook; the
        # generic one needs a queryset, which this view has none of.
        business = business_get(tenant=self.tenant, membership=self.membership,
                                remote_id=self.kwargs["remote_id"])
        self.check_object_permissions(self.request, business)
        return business

    def get(self, request, *args, **kwargs):
        business = self.get_object()
        levels = hierarchy_level_list(tenant=self.tenant, business=business)
        latest = hierarchy_latest_update(tenant=self.tenant, business=business)
        if latest is not None:
            latest.business = business
        data = {
            "business_number": business.remote_id,
            "levels": {row.level_name: row.level_value for row in levels},
            "latest_change": latest,
            "requested_levels": dict(sorted(latest.payload.get("levels", {}).items()))
            if latest is not None else None,
        }
        return Response(HierarchySerializer(data).data)

    def put(self, request, *args, **kwargs):
        business = self.get_object()
        return self.idempotent(request, lambda: self._replace(request, business))

    def _replace(self, request, business):
        serializer = HierarchyWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if not business.is_location or business.removed_at is not None:
            raise ValidationError({"non_field_errors": [
                "Hierarchy levels belong to current locations only."]})
        try:
            entry = hierarchy_update(tenant=self.tenant, actor=request.user, business=business,
                                     levels=serializer.validated_data["levels"])
        except ValueError as exc:
            raise ValidationError({"levels": [str(exc)]}) from exc
        entry.business = business
        return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED,
                        headers={"Location": _change_location(self, entry)})


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


# -- changes (outbox entries) ---------------------------------------------------------------------


class ChangeFilterSet(django_filters.FilterSet):
    state = django_filters.MultipleChoiceFilter(choices=OutboxEntry.State.choices)
    kind = django_filters.MultipleChoiceFilter(choices=OutboxEntry.Kind.choices)
    business_number = django_filters.NumberFilter(field_name="business__remote_id")

    class Meta:
        model = OutboxEntry
        fields = ["state", "kind", "business_number"]


class ChangeMixin(TenantAPIMixin):
    serializer_class = ChangeSerializer

    def get_tenant_queryset(self):
        changes = outbox_entry_list(tenant=self.tenant,
                                    kinds=OutboxEntry.Kind.values).select_related("business")
        if self.membership.limited_to_id is not None:
            # A member limited to a subtree sees the changes of its businesses only.
            changes = changes.filter(business__in=business_list(
                tenant=self.tenant, membership=self.membership).values("pk"))
        return changes

    def get_object(self):
        entry = self.get_tenant_queryset().filter(pk=self.kwargs["pk"]).first()
        if entry is None:
            raise Http404("No such change.")
        return entry


@extend_schema(summary="Changes sent to the provider, newest first",
               description="Every write that answered 202 (hierarchy, listings, media, custom "
                           "fields, Q&A deletion, subscriptions) is one of these.",
               responses={200: ChangeSerializer, 400: ERRORS[400], **READ_ERRORS})
class ChangeList(ChangeMixin, generics.ListAPIView):
    filter_backends = [DjangoFilterBackend]
    filterset_class = ChangeFilterSet


@extend_schema(summary="One change and its state", parameters=[PK],
               responses={200: ChangeSerializer, **READ_ERRORS})
class ChangeDetail(ChangeMixin, generics.RetrieveAPIView):
    pass


@extend_schema(
    summary="Send a failed or rejected change again",
    description="Only a change whose state is `failed` or `rejected` can be sent again "
                "(409 otherwise). Answers 202 with the change, pending again.",
    parameters=[PK], request=None,
    responses={202: ChangeSerializer, 409: OpenApiResponse(
        ApiErrorSerializer, description="The change is not failed or rejected."),
        **{code: ERRORS[code] for code in (401, 403, 404, 429)}})
class ChangeRetry(ChangeMixin, generics.GenericAPIView):
    pagination_class = None

    def post(self, request, *args, **kwargs):
        entry = self.get_object()
        try:
            entry = outbox_retry(tenant=self.tenant, actor=request.user, entry=entry)
        except ValueError as exc:
            raise Conflict(str(exc)) from exc
        return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED,
                        headers={"Location": _change_location(self, entry)})

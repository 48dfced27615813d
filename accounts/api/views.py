import django_filters
from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.exceptions import APIException, ValidationError
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
    SyncRunSerializer,
    SyncStartSerializer,
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
from accounts.settings_selectors import audit_event_search, sync_run_get, sync_run_list
from accounts.syncing import sync_start
from listings.selectors import outbox_entry_list
from outbox.models import OutboxEntry
from outbox.services import outbox_retry
from portal.api.errors import ApiErrorSerializer


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


# -- shared schema pieces ------------------------------------------------------------------------

ERRORS = {
    400: OpenApiResponse(ApiErrorSerializer, description="Invalid input, per field."),
    401: OpenApiResponse(ApiErrorSerializer, description="No or a bad token."),
    403: OpenApiResponse(ApiErrorSerializer, description="Your role does not allow this."),
    404: OpenApiResponse(ApiErrorSerializer,
                         description="Not found (or another reseller's)."),
    429: OpenApiResponse(ApiErrorSerializer,
                         description="Too many requests; see Retry-After."),
}
READ_ERRORS = {code: ERRORS[code] for code in (401, 404, 429)}
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
    description="Send the same key again to get the first answer back instead of doing the "
                "work twice; the same key with another body is refused (400).")
REMOTE_ID = OpenApiParameter("remote_id", int, OpenApiParameter.PATH,
                             description="The business number.")
# drf-spectacular names a `<pk>` path parameter `id` in the schema.
PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The id of the object.")


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The resource is not in a state that allows this."


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


# -- sync runs -----------------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(summary="Sync runs, newest first", responses={200: SyncRunSerializer,
                                                                     **READ_ERRORS}),
    post=extend_schema(
        summary="Start a sync",
        description="Queues a sync of the given resources (everything when left out); a member "
                    "limited to a subtree syncs that subtree. Answers **202** with the new run. "
                    "When a run covering some of these resources is already queued or running, "
                    "answers **200** with that run instead of starting another. Poll "
                    "`sync-runs/{id}/` for progress.",
        parameters=[IDEMPOTENCY_KEY], request=SyncStartSerializer,
        responses={202: OpenApiResponse(SyncRunSerializer, description="A new run, queued."),
                   200: OpenApiResponse(SyncRunSerializer,
                                        description="The run already active for these "
                                                    "resources."),
                   **ERRORS},
        examples=[OpenApiExample("Listing status and media only", request_only=True,
                                 value={"resources": ["listing_status", "media"]})]),
)
class SyncRunList(TenantAPIMixin, IdempotentCreateMixin, generics.ListAPIView):
    serializer_class = SyncRunSerializer

    def get_tenant_queryset(self):
        return sync_run_list(tenant=self.tenant, membership=self.membership)

    def post(self, request, *args, **kwargs):
        return self.idempotent(request, lambda: self._start(request))

    def _start(self, request):
        serializer = SyncStartSerializer(data=request.data,
                                         context={"membership": self.membership})
        serializer.is_valid(raise_exception=True)
        run, created = sync_start(tenant=self.tenant, actor=request.user,
                                  resources=serializer.validated_data.get("resources"),
                                  scope=self.membership.limited_to)
        visible = sync_run_list(tenant=self.tenant, membership=self.membership)
        run = visible.filter(pk=run.pk).first()
        if run is None:
            # The run already active is one of the whole account, which this member may not
            # see: say so without showing it.
            raise Conflict("A sync of the whole account that covers these resources is "
                           "running; start yours again when it has finished.")
        location = reverse("api_sync_run_detail", args=[self.tenant.slug, run.pk],
                           request=request)
        return Response(SyncRunSerializer(run).data,
                        status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK,
                        headers={"Location": location})


@extend_schema(summary="One sync run with its progress", parameters=[PK],
               responses={200: SyncRunSerializer, **READ_ERRORS})
class SyncRunDetail(TenantAPIMixin, generics.RetrieveAPIView):
    serializer_class = SyncRunSerializer

    def get_object(self):
        return sync_run_get(tenant=self.tenant, pk=self.kwargs["pk"],
                            membership=self.membership)


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

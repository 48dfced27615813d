"""The sync API: start a run, list runs, one run with its progress."""

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.reverse import reverse

from accounts.api.base import IdempotentCreateMixin, TenantAPIMixin
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY, PK, READ_ERRORS
from portal.api.errors import Conflict
from sync.api.serializers import SyncRunSerializer, SyncStartSerializer
from sync.selectors import sync_run_get, sync_run_list
from sync.services import sync_start


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

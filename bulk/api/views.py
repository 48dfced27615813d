"""The bulk changes API: make one and its dry run, send it in waves, pause, resume, cancel, roll
back; read it, its progress and its locations."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from accounts.api.base import IdempotentCreateMixin, TenantAPIMixin
from bulk import sending
from bulk.api import serializers as s
from bulk.selectors import bulk_change_get, bulk_change_item_list, bulk_change_list
from bulk.services import bulk_change_create
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY, PK, READ_ERRORS, WRITE_ERRORS
from portal.api.errors import ApiErrorSerializer, Conflict

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
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "businesses": "Locations within your part of the account that exist.",
        "set": "The listing editor's rules on each location's listing.",
        "waves": "Whole numbers of locations, 1 or more.",
        "wait_for_statuses": "true or false.",
        "action_required_threshold": "0 or more.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = s.BulkChangeSerializer

    def get_tenant_queryset(self):
        return bulk_change_list(tenant=self.tenant, membership=self.membership)

    @extend_schema(
        summary="Make a bulk change and its dry run",
        description="Checks the change on every chosen location against its last accepted "
                    "listing and answers the counts: `will_change`, `unchanged` and `invalid` "
                    "(breaks a rule of the listing editor). Read each location's result in "
                    "`items/`. With `dry_run: true` nothing is sent (send it with `apply/`); "
                    "with `false` the first wave goes out at once. A wrong body is a 400 whose "
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
        return bulk_change_item_list(tenant=self.tenant, change=change) \
            .select_related("listing_version")


ACTION_ERRORS = {409: OpenApiResponse(ApiErrorSerializer,
                                      description="The change's state does not allow it."),
                 **{code: ERRORS[code] for code in (401, 403, 404, 429)}}


class BulkChangeAction(TenantAPIMixin, generics.GenericAPIView):
    """One step a member takes on a bulk change; answers the change in its new state."""

    pagination_class = None
    serializer_class = s.BulkChangeSerializer
    service = None  # the bulk.sending function of the step

    def post(self, request, *args, **kwargs):
        change = bulk_change_get(tenant=self.tenant, membership=self.membership,
                                 pk=self.kwargs["pk"])
        try:
            change = type(self).service(tenant=self.tenant, actor=request.user, change=change)
        except ValidationError as exc:
            raise Conflict(" ".join(exc.messages)) from exc
        return Response(s.BulkChangeSerializer(change).data)


def _action(name: str, service, summary: str, description: str) -> type:
    view = extend_schema(summary=summary, description=description, parameters=[PK],
                         request=None,
                         responses={200: s.BulkChangeSerializer, **ACTION_ERRORS})(
        type(name, (BulkChangeAction,), {"service": staticmethod(service),
                                         "__doc__": description}))
    return view


BulkChangeApply = _action(
    "BulkChangeApply", sending.bulk_change_apply, "Send a bulk change in waves",
    "Starts sending a change whose dry run is done: the first wave goes out at once through "
    "the outbox (paced by the provider's rate limit); each next wave starts once the one before "
    "is answered and healthy. An unhealthy wave pauses the change (`paused_reason` says why). "
    "409 when the state does not allow it or the dry run found nothing to change.")
BulkChangePause = _action(
    "BulkChangePause", sending.bulk_change_pause, "Pause a bulk change",
    "No new wave starts; the changes already sent are still answered. 409 unless `applying`.")
BulkChangeResume = _action(
    "BulkChangeResume", sending.bulk_change_resume, "Resume a paused bulk change",
    "Goes on with the next wave, past the wave that paused it. 409 unless `paused`.")
BulkChangeCancel = _action(
    "BulkChangeCancel", sending.bulk_change_cancel, "Cancel a bulk change",
    "Nothing more is sent; the locations not reached are `skipped`. The changes already sent "
    "stay (roll them back with `rollback/`).")
BulkChangeRollback = _action(
    "BulkChangeRollback", sending.bulk_change_rollback, "Roll a bulk change back",
    "Sends each location the change reached the fields it set as they were in its previous "
    "accepted listing version. A location with no earlier version, or changed again since, is "
    "left as it is: its item's `rollback_state` is `impossible` and `note` says why. 409 while "
    "changes are still being sent, or when none was accepted.")

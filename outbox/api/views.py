"""The changes API: what was sent to the provider on the member's behalf, its state, a retry."""

import django_filters
from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.reverse import reverse

from accounts.api.base import TenantAPIMixin
from outbox.api.serializers import ChangeSerializer
from outbox.models import OutboxEntry
from outbox.selectors import outbox_entry_visible
from outbox.services import outbox_mark_arrived, outbox_retry
from portal.api.docs import ERRORS, PK, READ_ERRORS
from portal.api.errors import ApiErrorSerializer, Conflict


def change_location(view, entry) -> str:
    return reverse("api_change_detail", args=[view.tenant.slug, entry.pk], request=view.request)


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
        return outbox_entry_visible(tenant=self.tenant,
                                    membership=self.membership).select_related("business")

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
    summary="Send a failed, rejected or in-doubt change again",
    description="Only a change whose state is `failed`, `rejected` or `in_doubt` can be sent "
                "again (409 otherwise). A change in doubt is sent without reading the "
                "provider's state back first: if it did arrive, the provider gets it twice "
                "(check at the provider, or use `arrived/`). Answers 202 with the change, "
                "pending again.",
    parameters=[PK], request=None,
    responses={202: ChangeSerializer, 409: OpenApiResponse(
        ApiErrorSerializer, description="The change is not failed, rejected or in doubt."),
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
                        headers={"Location": change_location(self, entry)})


@extend_schema(
    summary="Say that an in-doubt change arrived",
    description="A change is `in_doubt` when its request left for the provider, the answer "
                "was lost, and the provider's state cannot tell whether it arrived. Once you "
                "have checked at the provider that it did, this records it as accepted (with "
                "who said so) and applies its effects in the portal. 409 unless the change is "
                "in doubt.",
    parameters=[PK], request=None,
    responses={200: ChangeSerializer, 409: OpenApiResponse(
        ApiErrorSerializer, description="The change is not in doubt."),
        **{code: ERRORS[code] for code in (401, 403, 404, 429)}})
class ChangeArrived(ChangeMixin, generics.GenericAPIView):
    pagination_class = None

    def post(self, request, *args, **kwargs):
        entry = self.get_object()
        try:
            entry = outbox_mark_arrived(tenant=self.tenant, actor=request.user, entry=entry)
        except ValueError as exc:
            raise Conflict(str(exc)) from exc
        return Response(ChangeSerializer(entry).data, status=status.HTTP_200_OK)

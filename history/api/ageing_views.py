"""The late sites and the directories' delays in the API."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response

from accounts.api.base import TenantAPIMixin
from history.ageing import late_sites
from history.ageing_forms import LateSitesQueryForm
from history.api.ageing_serializers import (
    DirectoryDelaySerializer,
    DirectoryDelaysWriteSerializer,
    LateSiteSerializer,
    LateSitesQuerySerializer,
)
from history.delays import directory_delay_set, directory_delays
from portal.api.docs import ERRORS
from portal.api.serializers import form_errors

LIST_ERRORS = {code: ERRORS[code] for code in (400, 401, 403, 404, 429)}
PAGINATION = {"limit", "offset", "format"}


@extend_schema(
    summary="Sites late against their directory's usual delay",
    description="Sites Submitted or In Progress for longer than their directory's usual delay "
                "(your own, else learned from your sites, else the portal's default: see "
                "`directory-delays/`), and sites asking for action for longer than the grace, "
                "of the locations you may see; most late first unless sorted otherwise. An "
                "unknown parameter or a wrong value is a 400 naming it.",
    parameters=[LateSitesQuerySerializer], responses={200: LateSiteSerializer(many=True),
                                                      **LIST_ERRORS})
class LateSiteList(TenantAPIMixin, generics.GenericAPIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {
        "site": "A directory site the account's listings report.",
    }}

    serializer_class = LateSiteSerializer
    filter_backends: list = []

    def get(self, request, *args, **kwargs):
        params = request.query_params
        delays = directory_delays(tenant=self.tenant)
        form = LateSitesQueryForm(params, delays=delays)
        unknown = sorted(set(params) - set(form.fields) - PAGINATION)
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown parameter: this operation does not take it."]
                 for name in unknown})
        if not form.is_valid():
            raise serializers.ValidationError(form_errors(form))
        rows = late_sites(tenant=self.tenant, membership=self.membership, delays=delays,
                          **form.selector_kwargs())
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class DirectoryDelayList(TenantAPIMixin, generics.GenericAPIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"put": {
        "delays": "Each `site_id` a directory site the account's listings report.",
    }}

    serializer_class = DirectoryDelaySerializer
    filter_backends: list = []
    pagination_class = None

    def get_object(self):
        # What a PUT replaces is the reseller's own (OPTIONS asks for it to describe the PUT).
        return self.tenant

    @extend_schema(summary="Each directory site's usual delay",
                   description="The portal's default, what was learned from your sites, your "
                               "own figure, and the delay that applies with its source.",
                   responses={200: DirectoryDelaySerializer(many=True), **LIST_ERRORS})
    def get(self, request, *args, **kwargs):
        return Response(self.get_serializer(directory_delays(tenant=self.tenant),
                                            many=True).data)

    @extend_schema(summary="Set your usual delay of directory sites",
                   description="Owners without a limit. Each change is in the audit log.",
                   request=DirectoryDelaysWriteSerializer,
                   responses={200: DirectoryDelaySerializer(many=True), **LIST_ERRORS})
    def put(self, request, *args, **kwargs):
        body = DirectoryDelaysWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # All or nothing: a site refused undoes those before it.
        with transaction.atomic():
            for index, item in enumerate(body.validated_data["delays"]):
                try:
                    directory_delay_set(tenant=self.tenant, actor=request.user, **item)
                except DjangoValidationError as exc:
                    raise serializers.ValidationError(
                        {f"delays[{index}].{field}": errors
                         for field, errors in exc.message_dict.items()}) from exc
        return Response(self.get_serializer(directory_delays(tenant=self.tenant),
                                            many=True).data)

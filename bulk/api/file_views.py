"""The listings files API: export listings as CSV or XLSX, import such a file into a preview,
and make the preview a bulk change."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.base import TenantAPIMixin
from accounts.filtersets import BusinessFilterSet
from bulk.api import file_serializers as s
from bulk.api.serializers import BulkChangeSerializer
from bulk.files import EXPORT_FORMATS, listing_export, max_bytes
from bulk.imports import (
    listing_import_apply,
    listing_import_create,
    listing_import_get,
    listing_import_list,
    listing_import_row_list,
)
from bulk.models import ListingImportRow
from portal.api.base import LimitOffset
from portal.api.docs import ERRORS, PK, READ_ERRORS, WRITE_ERRORS
from portal.api.errors import ApiErrorSerializer, Conflict
from portal.api.files import FileReplyMixin

FILTER_PARAMETERS = [
    OpenApiParameter(name, str, OpenApiParameter.QUERY, required=False,
                     description=str(getattr(item, "extra", {}).get("help_text", ""))
                     or "A filter of the businesses list, with the same values.")
    for name, item in BusinessFilterSet.base_filters.items() if name != "removed"
]
FORMAT_PARAMETER = OpenApiParameter(
    "format", str, OpenApiParameter.QUERY, required=False, enum=list(EXPORT_FORMATS),
    description="csv (the default; UTF-8, with a byte-order mark for Excel) or xlsx.")
STATE_PARAMETER = OpenApiParameter(
    "state", str, OpenApiParameter.QUERY, required=False,
    enum=list(ListingImportRow.State.values), description="Only the rows in this state.")


class ListingExport(FileReplyMixin, TenantAPIMixin, APIView):
    """The listings of the chosen locations as a file: one row per location (its last accepted
    listing, or what its business row tells before the first), one column per field of the
    listing (`business_number`, `business_name`, then each field's dotted path). The filters
    are those of `GET businesses/`; only locations, and only those your access covers, at
    most 10,000. The same file, edited, is what `POST listing-imports/` takes."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {
        "q": "Together, the filters match at least one location you may see.",
        "type": "Together, the filters match at least one location you may see.",
        "status": "Together, the filters match at least one location you may see.",
        "city": "Together, the filters match at least one location you may see.",
        "country": "Together, the filters match at least one location you may see.",
        "listing_status": "Together, the filters match at least one location you may see.",
        "needs_action": "Together, the filters match at least one location you may see.",
        "triage": "Together, the filters match at least one location you may see.",
        "within": "Together, the filters match at least one location you may see.",
        "sort": "Together, the filters match at least one location you may see.",
        "format": "Together, the filters match at least one location you may see.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    @extend_schema(
        summary="Export listings as CSV or XLSX", parameters=[FORMAT_PARAMETER,
                                                              *FILTER_PARAMETERS],
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY,
                                                      description="The file."),
                   (200, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"):
                       OpenApiResponse(OpenApiTypes.BINARY, description="The file."),
                   400: ERRORS[400], **READ_ERRORS})
    def get(self, request, *args, **kwargs):
        params = {name: value for name, value in request.query_params.items()}
        exported = listing_export(tenant=self.tenant, actor=request.user,
                                  membership=self.membership, params=params,
                                  format=params.get("format") or "csv")
        return self.file_reply(exported.content(), exported.content_type, exported.name)


def preview_data(view, listing_import) -> dict:
    """The import with a page of its rows (`limit`, `offset`, `state` of the request)."""
    request = view.request
    state = request.query_params.get("state") or None
    if state is not None and state not in ListingImportRow.State.values:
        raise ValidationError({"state": [f"Give one of {', '.join(ListingImportRow.State)}."]})
    paginator = LimitOffset()
    page = paginator.paginate_queryset(
        listing_import_row_list(tenant=view.tenant, listing_import=listing_import, state=state),
        request, view=view)
    rows = {"count": paginator.count, "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "results": s.ListingImportRowSerializer(page, many=True).data}
    return s.ListingImportPreviewSerializer(listing_import, context={"rows": rows}).data


class ListingImportList(TenantAPIMixin, generics.ListAPIView):
    """Imported listings files, newest first; POST imports one and answers its preview."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "file": "A CSV or Excel (XLSX) file of listings, as the export writes it.",
        "columns": "Columns that are fields of the listing, or mapped.",
        "mapping": "Columns mapped to fields of the listing.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = s.ListingImportSerializer
    parser_classes = [MultiPartParser]  # a file upload, as the logo: multipart, not JSON

    def get_tenant_queryset(self):
        return listing_import_list(tenant=self.tenant, membership=self.membership)

    @extend_schema(
        summary="Import a listings file: its preview, row by row",
        description="Reads a CSV or Excel (XLSX) file of listings, one row per location as "
                    "`GET listings/export/` writes it, and answers its preview: per row, the "
                    "changes it makes to its location's listing (the dry run of a bulk "
                    "change), `unchanged`, or its errors, each naming its column. An empty cell "
                    "leaves its field as it is; `(clear)` empties it. Nothing is sent. A wrong "
                    "file is a 400 naming `file` (not CSV or XLSX, over the size limit, too "
                    "many rows) or `columns.<column>` (a column that is no field of the "
                    "listing: name the field it fills in `mapping`, or \"\" to leave it out).",
        request={"multipart/form-data": s.ListingImportCreateSerializer},
        parameters=[STATE_PARAMETER],
        responses={201: s.ListingImportPreviewSerializer, **WRITE_ERRORS})
    def post(self, request, *args, **kwargs):
        body = s.ListingImportCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        upload = body.validated_data["file"]
        # Read at most one byte past the limit: the service refuses it, naming the limit.
        data = upload.read(max_bytes() + 1)
        listing_import = listing_import_create(
            tenant=self.tenant, actor=request.user, membership=self.membership, data=data,
            file_name=upload.name or "", mapping=body.validated_data.get("mapping"))
        return Response(preview_data(self, listing_import), status=status.HTTP_201_CREATED)


@extend_schema(summary="One imported file: its preview, row by row",
               parameters=[PK, STATE_PARAMETER],
               responses={200: s.ListingImportPreviewSerializer, **READ_ERRORS})
class ListingImportDetail(TenantAPIMixin, APIView):

    def get(self, request, *args, **kwargs):
        listing_import = listing_import_get(tenant=self.tenant, membership=self.membership,
                                            pk=self.kwargs["pk"])
        return Response(preview_data(self, listing_import))


APPLY_ERRORS = {409: OpenApiResponse(
    ApiErrorSerializer, description="The file was applied already, or nothing in it changes "
                                    "a listing."), **WRITE_ERRORS}


@extend_schema(
    summary="Make an imported file a bulk change",
    description="Creates the bulk change of the file's rows (source `file`): its dry run is "
                "measured again against the listings as they are now, and it is sent, paused, "
                "resumed, cancelled and rolled back as any bulk change (`bulk-changes/<id>/`). "
                "A file with rows in error is refused (400 naming `skip_invalid` and the rows) "
                "unless `skip_invalid` is true; a file is applied once (409).",
    parameters=[PK], request=s.ListingImportApplySerializer,
    responses={201: BulkChangeSerializer, **APPLY_ERRORS})
class ListingImportApply(TenantAPIMixin, generics.GenericAPIView):
    pagination_class = None
    serializer_class = s.ListingImportApplySerializer

    def post(self, request, *args, **kwargs):
        listing_import = listing_import_get(tenant=self.tenant, membership=self.membership,
                                            pk=self.kwargs["pk"])
        body = s.ListingImportApplySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            change = listing_import_apply(tenant=self.tenant, actor=request.user,
                                          membership=self.membership,
                                          listing_import=listing_import, **body.validated_data)
        except ValidationError as error:
            if hasattr(error, "error_dict"):
                raise
            raise Conflict(" ".join(error.messages)) from error
        return Response(BulkChangeSerializer(change).data, status=status.HTTP_201_CREATED)

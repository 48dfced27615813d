"""Serializers of the listings files API: exports, imports and their previews."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bulk.models import ListingImport, ListingImportRow
from portal.api.serializers import StrictSerializer

# A file's import: previewed, or applied (it became a bulk change).
IMPORT_STATES = ["preview", "applied"]


class ListingImportCreateSerializer(StrictSerializer):
    api_description = (
        "A listings file as multipart form data: `file`, a CSV or Excel (XLSX) file whose first "
        "row names the columns (as an export does), and optionally `mapping`, a JSON object "
        "naming the field each of your own columns fills: "
        '`{"Store": "business_number", "Web": "businessInfo.websiteUrl", "Notes": ""}` ("" '
        "leaves a column out). " + StrictSerializer.api_description)

    file = serializers.FileField(allow_empty_file=True)
    mapping = serializers.JSONField(required=False)


class ListingImportApplySerializer(StrictSerializer):
    api_description = (
        "Makes the import a bulk change: each row that changes its location sets its own part "
        "of the listing. `waves`, `wait_for_statuses` and `action_required_threshold` are "
        "those of a bulk change. `dry_run` true (the default) stores the change and its dry "
        "run; false starts sending it at once. A file with rows in error is applied only with "
        "`skip_invalid: true`, to its other rows. " + StrictSerializer.api_description)

    waves = serializers.JSONField(required=False, default=list)
    wait_for_statuses = serializers.BooleanField(required=False, default=False)
    action_required_threshold = serializers.IntegerField(required=False, default=0,
                                                         min_value=0)
    dry_run = serializers.BooleanField(required=False, default=True)
    skip_invalid = serializers.BooleanField(required=False, default=False)


class ImportCountsSerializer(serializers.Serializer):
    rows = serializers.IntegerField()
    will_change = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    invalid = serializers.IntegerField()
    unknown_business = serializers.IntegerField()


class RowErrorSerializer(serializers.Serializer):
    column = serializers.CharField(allow_blank=True,
                                   help_text="The file's column, as its header names it; "
                                             "empty when the error is about the whole row.")
    field = serializers.CharField(allow_blank=True,
                                  help_text="Dotted path of the listing's field, or "
                                            "non_field_errors.")
    message = serializers.CharField()


class RowDiffSerializer(serializers.Serializer):
    path = serializers.CharField()
    label = serializers.CharField()
    old = serializers.CharField(allow_blank=True)
    new = serializers.CharField(allow_blank=True)


class ListingImportRowSerializer(serializers.ModelSerializer):
    api_description = (
        "One row of the file: `will_change` with the changes it makes (`diff`, as the listing "
        "review shows them), `unchanged`, `invalid` with its `errors` (each naming the column "
        "it belongs to), or `unknown_business` (no location of that number in your part of the "
        "account).")

    row = serializers.IntegerField(source="line", help_text="Its row in the file; the header "
                                                             "is row 1.")
    diff = RowDiffSerializer(many=True)
    errors = RowErrorSerializer(many=True)

    class Meta:
        model = ListingImportRow
        fields = ["row", "business_number", "business_name", "state", "diff", "errors"]
        read_only_fields = fields


class RowsPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = ListingImportRowSerializer(many=True)


class ListingImportSerializer(serializers.ModelSerializer):
    api_description = ("An imported listings file and the counts of its preview; `bulk_change` "
                       "is the bulk change it became once applied.")

    counts = serializers.SerializerMethodField()
    created_by = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField()
    mapping = serializers.SerializerMethodField(
        help_text='The columns not read as their header names them: each with the field it '
                  'fills, or "" when it was left out.')

    class Meta:
        model = ListingImport
        fields = ["id", "state", "file_name", "format", "counts", "columns", "mapping",
                  "bulk_change", "created_at", "created_by", "applied_at"]
        read_only_fields = fields

    @extend_schema_field(ImportCountsSerializer)
    def get_counts(self, listing_import) -> dict:
        return {name: listing_import.counts.get(name, 0)
                for name in ImportCountsSerializer().fields}

    @extend_schema_field(serializers.DictField(child=serializers.CharField(allow_blank=True)))
    def get_mapping(self, listing_import) -> dict:
        return {name: target for name, target in listing_import.mapping.items()
                if name != target}

    def get_created_by(self, listing_import) -> str:
        return str(listing_import.created_by) if listing_import.created_by else ""

    @extend_schema_field(serializers.ChoiceField(choices=IMPORT_STATES))
    def get_state(self, listing_import) -> str:
        return "applied" if listing_import.applied_at else "preview"


class ListingImportPreviewSerializer(ListingImportSerializer):
    api_description = ("An imported listings file: the counts of its preview and a page of its "
                       "rows (`limit`, `offset` and `state` choose it).")

    rows = serializers.SerializerMethodField()

    class Meta(ListingImportSerializer.Meta):
        fields = [*ListingImportSerializer.Meta.fields, "rows"]
        read_only_fields = fields

    @extend_schema_field(RowsPageSerializer)
    def get_rows(self, listing_import) -> dict:
        return self.context["rows"]

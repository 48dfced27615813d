"""Serializers of the bulk changes API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bulk.models import BulkChange, BulkChangeItem
from portal.api.serializers import StrictSerializer


class BulkChangeCreateSerializer(StrictSerializer):
    api_description = (
        "A change of many locations' listings. `businesses` chooses them: "
        '`{"numbers": [business numbers]}`, `{"filter": {the filters of GET businesses/}}` or '
        '`{"node": business number}` (the locations under it); only locations, and only those '
        "your access covers. `set` is the part of the listing to set, in the create-listing "
        "shape (the body of a listing submission, without the name); `lists` says whether a "
        "list given replaces the listing's (`replace`, the default) or adds its new items "
        "after the listing's own (`append`). `waves` are the sizes of the waves the change "
        "will be sent in, the last one repeating (`[5, 50]`: 5 locations, then 50 at a time). "
        "`dry_run` must be true: sending comes in a later version, and nothing is sent now. "
        + StrictSerializer.api_description)

    businesses = serializers.JSONField()
    set = serializers.JSONField()
    lists = serializers.ChoiceField(choices=BulkChange.Lists.choices,
                                    default=BulkChange.Lists.REPLACE)
    waves = serializers.JSONField(required=False, default=list)
    dry_run = serializers.BooleanField(
        help_text="Required: true (the only kind of bulk change yet). Never assumed, so that "
                  "a body written today does not send anything once sending exists.")


class CountsSerializer(serializers.Serializer):
    selected = serializers.IntegerField()
    will_change = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    invalid = serializers.IntegerField()


class BulkChangeSerializer(serializers.ModelSerializer):
    api_description = "A bulk change and the counts of its dry run."

    counts = serializers.SerializerMethodField()
    created_by = serializers.SerializerMethodField()

    class Meta:
        model = BulkChange
        fields = ["id", "state", "counts", "current_wave", "selection", "set", "lists", "waves",
                  "created_at", "created_by"]
        read_only_fields = fields

    @extend_schema_field(CountsSerializer)
    def get_counts(self, change) -> dict:
        # A change stored before its dry run finished has no counts yet.
        return {name: change.counts.get(name, 0) for name in CountsSerializer().fields}

    def get_created_by(self, change) -> str:
        return str(change.created_by) if change.created_by else ""


class ItemErrorSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="Dotted path of the listing's field, or "
                                            "non_field_errors.")
    message = serializers.CharField()


class DiffSerializer(serializers.Serializer):
    path = serializers.CharField()
    label = serializers.CharField()
    old = serializers.CharField(allow_blank=True)
    new = serializers.CharField(allow_blank=True)


class BulkChangeItemSerializer(serializers.ModelSerializer):
    api_description = ("One location of a bulk change: `will_change` with the changes "
                       "(`diff`, as the listing review shows them), `unchanged`, or `invalid` "
                       "with the rules the listing would break (`errors`).")

    diff = DiffSerializer(many=True)
    errors = ItemErrorSerializer(many=True)

    class Meta:
        model = BulkChangeItem
        fields = ["business_number", "state", "diff", "errors"]
        read_only_fields = fields

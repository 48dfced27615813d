"""Serializers of the bulk changes API."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bulk.models import BulkChange, BulkChangeItem
from bulk.selectors import bulk_change_actions, bulk_change_progress
from listings.editor.document import listing_document_schema
from portal.api.serializers import StrictSerializer


@extend_schema_field(listing_document_schema(required=False))
class ListingPartField(serializers.JSONField):
    """Part of a listing, any fields of it: the service judges it (bulk.services)."""


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
        "A wave is healthy when the provider refuses none of its changes and, with "
        "`wait_for_statuses`, its locations' directory statuses, read again after it, show no "
        "more than `action_required_threshold` new \"Action Required\" sites; an unhealthy "
        "wave pauses the change. `dry_run: true` checks only (send it later with `apply/`); "
        "`false` checks, then starts sending at once. "
        + StrictSerializer.api_description)

    businesses = serializers.JSONField()
    set = ListingPartField(help_text="The part of the listing to set, in its shape.")
    lists = serializers.ChoiceField(choices=BulkChange.Lists.choices,
                                    default=BulkChange.Lists.REPLACE)
    waves = serializers.JSONField(required=False, default=list)
    wait_for_statuses = serializers.JSONField(required=False, default=False)
    action_required_threshold = serializers.JSONField(required=False, default=0)
    dry_run = serializers.BooleanField(
        help_text="Required, never assumed: true checks only, false checks then sends.")


class CountsSerializer(serializers.Serializer):
    selected = serializers.IntegerField()
    will_change = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    invalid = serializers.IntegerField()


class ProgressSerializer(serializers.Serializer):
    waves_total = serializers.IntegerField(help_text="Waves sent and still to send.")
    current_wave = serializers.IntegerField(help_text="The wave being sent, from 1; 0 before.")
    locations = serializers.IntegerField(help_text="Locations the change is sent to.")
    waiting = serializers.IntegerField(help_text="Not sent yet: their wave has not started.")
    queued = serializers.IntegerField(help_text="Sent, waiting for the provider's answer.")
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()
    failed = serializers.IntegerField()
    in_doubt = serializers.IntegerField(help_text="Sent, but the answer was lost and the "
                                                  "provider's state cannot tell whether it "
                                                  "arrived: see the change (`changes/<id>/`).")
    skipped = serializers.IntegerField(help_text="Not sent: cancelled, or the listing changed "
                                                 "after the dry run.")
    rolled_back = serializers.IntegerField()
    percent = serializers.IntegerField(help_text="Of `locations`, those with an outcome.")
    rollback = serializers.DictField(child=serializers.IntegerField(),
                                     help_text="Locations by rollback state.")
    paused_reason = serializers.CharField(allow_blank=True)


class BulkChangeSerializer(serializers.ModelSerializer):
    api_description = ("A bulk change: its state (`dry_run_done`, `applying`, `paused`, "
                       "`cancelled`, `done`, `rolling_back`, `rolled_back`), the counts of its "
                       "dry run, and its progress.")

    counts = serializers.SerializerMethodField()
    created_by = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    actions = serializers.SerializerMethodField()

    class Meta:
        model = BulkChange
        fields = ["id", "state", "counts", "current_wave", "progress", "paused_reason",
                  "actions", "selection", "source", "set", "lists", "waves",
                  "wait_for_statuses", "action_required_threshold", "created_at",
                  "created_by", "started_at", "finished_at"]
        read_only_fields = fields

    def _progress(self, change) -> dict:
        if getattr(change, "_progress", None) is None:
            change._progress = bulk_change_progress(change=change)
        return change._progress

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, change) -> dict:
        return self._progress(change)

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(
        choices=["apply", "pause", "resume", "cancel", "rollback"])))
    def get_actions(self, change) -> list[str]:
        return bulk_change_actions(change, self._progress(change))

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
    api_description = ("One location of a bulk change. After the dry run: `will_change` with "
                       "the changes (`diff`, as the listing review shows them), `unchanged`, or "
                       "`invalid` with the rules the listing would break (`errors`). Sending: "
                       "`queued`, then `accepted`, `rejected` or `failed` (the provider's "
                       "message in `note`), `in_doubt` (the answer was lost; decide on its "
                       "change whether it arrived), or `skipped` (why, in `note`); "
                       "`rolled_back` once its rollback is accepted. `rollback_state` "
                       "follows a rollback (`impossible`: `note` says why).")

    diff = DiffSerializer(many=True)
    errors = ItemErrorSerializer(many=True)
    listing_version = serializers.SerializerMethodField(
        help_text="The number of the listing version this change became, once sent.")

    class Meta:
        model = BulkChangeItem
        fields = ["business_number", "state", "wave", "diff", "errors", "note",
                  "listing_version", "rollback_state"]
        read_only_fields = fields

    def get_listing_version(self, item) -> int | None:
        return item.listing_version.number if item.listing_version_id else None

from rest_framework import serializers

from accounts import access
from accounts.models import SyncRun
from portal.api.serializers import StrictSerializer
from sync.services import RESOURCES
from sync.steps import run_lost_parts


class SyncRunSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    finished = serializers.BooleanField(source="is_finished", read_only=True)
    requests = serializers.IntegerField(source="requests_made", read_only=True)
    scope_number = serializers.IntegerField(source="scope.remote_id", read_only=True,
                                            allow_null=True, default=None)
    started_by = serializers.EmailField(source="created_by.email", read_only=True,
                                        allow_null=True, default=None)
    resources = serializers.ListField(child=serializers.ChoiceField(choices=RESOURCES))
    counts = serializers.DictField(child=serializers.IntegerField(),
                                   help_text="Rows mirrored per resource.")
    errors = serializers.ListField(child=serializers.CharField(),
                                   help_text="The first errors met.")
    lost_parts = serializers.SerializerMethodField(
        help_text="Parts of a running sync whose worker stopped in the middle; another worker "
                  "takes each up within seconds (0 otherwise).")

    class Meta:
        model = SyncRun
        fields = ["id", "status", "finished", "resources", "scope_number", "total", "done",
                  "failed", "percent", "counts", "errors", "requests", "rate_limited",
                  "lost_parts", "started_by", "created_at", "started_at", "finished_at"]
        read_only_fields = fields

    def get_lost_parts(self, run) -> int:
        return run_lost_parts(run) if run.status == SyncRun.Status.RUNNING else 0


class SyncStartSerializer(StrictSerializer):
    resources = serializers.ListField(
        child=serializers.ChoiceField(choices=RESOURCES), required=False, allow_empty=False,
        help_text="What to sync; everything when left out. A member limited to part of the "
                  "account may sync only `businesses`, `listing_status`, `media`, `qna` and "
                  "`review_counts`, within their part.")

    def validate_resources(self, value):
        allowed = access.sync_resources_allowed(self.context.get("membership"))
        refused = [r for r in value if r not in allowed]
        if refused:
            raise serializers.ValidationError(
                f"{', '.join(refused)}: these cover the whole account, and your access is "
                f"limited to part of it. Choose from: {', '.join(allowed)}.")
        return value


# -- audit events --------------------------------------------------------------------------------

from rest_framework import serializers

from accounts.models import Business


class BusinessSerializer(serializers.ModelSerializer):
    business_number = serializers.IntegerField(source="remote_id", read_only=True)
    parent_number = serializers.IntegerField(source="parent.remote_id", read_only=True,
                                             allow_null=True, default=None)
    listing_status = serializers.CharField(source="status_report.location_status",
                                           read_only=True, allow_null=True, default=None)
    needs_action = serializers.BooleanField(source="status_report.needs_action",
                                            read_only=True, allow_null=True, default=None)

    class Meta:
        model = Business
        fields = ["business_number", "parent_number", "name", "alias", "type", "status",
                  "address1", "address2", "sub_locality", "city", "state", "zip",
                  "country_code", "country_name", "phone", "child_count", "created_on",
                  "created_by", "depth", "listing_status", "needs_action", "last_seen_at",
                  "removed_at"]
        read_only_fields = fields

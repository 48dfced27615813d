"""Provider events for support staff, across tenants: what arrived, what was done with it."""

from django.contrib import admin

from accounts.admin import UnscopedAdminMixin
from events.models import EventReceiver, ProviderEvent


@admin.register(EventReceiver)
class EventReceiverAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["reseller", "public_id", "events", "created_at", "disabled_at"]
    list_select_related = ["reseller"]
    exclude = ["password_hash"]
    readonly_fields = ["reseller", "public_id", "username", "events", "created_at",
                       "disabled_at"]

    def has_add_permission(self, request):
        return False


@admin.register(ProviderEvent)
class ProviderEventAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["received_at", "reseller", "event_name", "business_remote_id", "state",
                    "deliveries", "attempts"]
    list_filter = ["state", "event_name", "reseller"]
    search_fields = ["=business_remote_id", "result"]
    date_hierarchy = "received_at"
    list_select_related = ["reseller"]
    raw_id_fields = ["business"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

"""Alerts for support staff, across tenants: read only, the services write them."""

from django.contrib import admin

from accounts.admin import UnscopedAdminMixin
from alerts.models import Alert, Notification


@admin.register(Alert)
class AlertAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["created_at", "reseller", "kind", "title"]
    list_filter = ["kind", "reseller"]
    list_select_related = ["reseller"]
    raw_id_fields = ["business"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Notification)
class NotificationAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["created_at", "reseller", "kind", "membership", "channel", "read_at",
                    "emailed_at"]
    list_filter = ["kind", "channel"]
    raw_id_fields = ["alert", "membership"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

"""The history for support staff, across tenants: read only, the services write it."""

from django.contrib import admin

from accounts.admin import UnscopedAdminMixin
from history.models import AccountDay, BusinessDay


class _DayAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    date_hierarchy = "day"
    list_filter = ["reseller"]
    list_select_related = ["reseller"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(BusinessDay)
class BusinessDayAdmin(_DayAdmin):
    list_display = ["day", "reseller", "business", "locations", "synced", "total_sites",
                    "needs_action", "reviews"]
    raw_id_fields = ["business"]


@admin.register(AccountDay)
class AccountDayAdmin(_DayAdmin):
    list_display = ["day", "reseller", "locations", "synced", "total_sites", "needs_action",
                    "reviews"]

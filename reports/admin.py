"""Report schedules and sent reports for support staff, across tenants: read only, the services
write them (a schedule's next send is worked out by `reports.schedules`)."""

from django.contrib import admin

from accounts.admin import UnscopedAdminMixin
from reports.models import ReportSchedule, SentReport


@admin.register(ReportSchedule)
class ReportScheduleAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["created_at", "reseller", "business", "frequency", "hour", "active",
                    "next_send_at"]
    list_filter = ["frequency", "active"]
    list_select_related = ["reseller", "business"]
    raw_id_fields = ["business", "created_by"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SentReport)
class SentReportAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["created_at", "reseller", "business", "period_start", "period_end",
                    "trigger", "state", "attempts", "sent_at"]
    list_filter = ["state", "trigger"]
    list_select_related = ["reseller", "business"]
    raw_id_fields = ["schedule", "business", "created_by"]
    exclude = ["pdf"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("pdf")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

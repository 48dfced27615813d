from django.urls import path

from portal.placeholders import PlaceholderView

urlpatterns = [
    path("sync/", PlaceholderView.as_view(), name="sync_run_list"),
    path("sync/<int:pk>/", PlaceholderView.as_view(), name="sync_run_detail"),
    path("settings/", PlaceholderView.as_view(), name="settings_connection"),
    path("settings/members/", PlaceholderView.as_view(), name="settings_members"),
    path("settings/audit/", PlaceholderView.as_view(), name="settings_audit"),
]

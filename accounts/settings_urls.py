from django.urls import include, path

from accounts import settings_views

urlpatterns = [
    path("settings/", settings_views.ConnectionView.as_view(), name="settings_connection"),
    path("settings/test/", settings_views.TestConnectionView.as_view(),
         name="settings_test_connection"),
    path("settings/members/", settings_views.MemberListView.as_view(), name="settings_members"),
    path("settings/members/<int:pk>/", settings_views.MemberEditView.as_view(),
         name="settings_member_edit"),
    path("settings/members/<int:pk>/remove/", settings_views.MemberRemoveView.as_view(),
         name="settings_member_remove"),
    path("settings/audit/", settings_views.AuditLogView.as_view(), name="settings_audit"),
    path("", include("accounts.brand_urls")),
]

from django.urls import path

from alerts.api import views

urlpatterns = [
    path("notifications/", views.NotificationList.as_view(), name="api_notification_list"),
    path("notifications/read-all/", views.NotificationReadAll.as_view(),
         name="api_notification_read_all"),
    path("notifications/<int:pk>/read/", views.NotificationRead.as_view(),
         name="api_notification_read"),
    path("notification-preferences/", views.NotificationPreferences.as_view(),
         name="api_notification_preferences"),
    path("alert-rules/", views.AlertRules.as_view(), name="api_alert_rules"),
]

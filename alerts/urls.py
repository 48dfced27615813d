from django.urls import path

from alerts import views

urlpatterns = [
    path("notifications/", views.NotificationListView.as_view(), name="notification_list"),
    path("notifications/<int:pk>/", views.NotificationOpenView.as_view(),
         name="notification_open"),
    path("notifications/preferences/", views.NotificationPreferencesView.as_view(),
         name="notification_preferences"),
    path("alert-rules/", views.AlertRulesView.as_view(), name="alert_rules"),
]

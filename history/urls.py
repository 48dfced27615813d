from django.urls import path

from history import ageing_views, views

urlpatterns = [
    path("trends/", views.AccountTrendsView.as_view(), name="account_trends"),
    path("businesses/<int:remote_id>/trends/", views.BusinessTrendsView.as_view(),
         name="business_trends"),
    path("late-sites/", ageing_views.LateSitesView.as_view(), name="late_sites"),
    path("settings/directory-delays/", ageing_views.DirectoryDelaysView.as_view(),
         name="settings_directory_delays"),
]

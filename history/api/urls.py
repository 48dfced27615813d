from django.urls import path

from history.api import ageing_views, views

urlpatterns = [
    path("history/", views.AccountHistory.as_view(), name="api_history"),
    path("businesses/<int:remote_id>/history/", views.BusinessHistory.as_view(),
         name="api_business_history"),
    path("late-sites/", ageing_views.LateSiteList.as_view(), name="api_late_sites"),
    path("directory-delays/", ageing_views.DirectoryDelayList.as_view(),
         name="api_directory_delays"),
]

from django.urls import path

from sync.api import views

urlpatterns = [
    path("sync-runs/", views.SyncRunList.as_view(), name="api_sync_run_list"),
    path("sync-runs/<int:pk>/", views.SyncRunDetail.as_view(), name="api_sync_run_detail"),
]

from django.urls import path

from sync import views

urlpatterns = [
    path("sync/", views.SyncRunListView.as_view(), name="sync_run_list"),
    path("sync/<int:pk>/", views.SyncRunDetailView.as_view(), name="sync_run_detail"),
    path("sync/<int:pk>/progress.json", views.SyncRunProgressView.as_view(),
         name="sync_run_progress"),
]

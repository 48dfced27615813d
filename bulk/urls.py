from django.urls import path

from bulk import views

urlpatterns = [
    path("bulk-changes/", views.BulkChangeListView.as_view(), name="bulk_change_list"),
    path("bulk-changes/new/", views.BulkChangeNewView.as_view(), name="bulk_change_new"),
    path("bulk-changes/<int:pk>/", views.BulkChangeDetailView.as_view(),
         name="bulk_change_detail"),
    path("bulk-changes/<int:pk>/progress/", views.BulkChangeProgressView.as_view(),
         name="bulk_change_progress"),
    path("bulk-changes/<int:pk>/cancel/confirm/",
         views.BulkChangeConfirmView.as_view(action="cancel"),
         name="bulk_change_cancel_confirm"),
    path("bulk-changes/<int:pk>/rollback/confirm/",
         views.BulkChangeConfirmView.as_view(action="rollback"),
         name="bulk_change_rollback_confirm"),
    *(path(f"bulk-changes/<int:pk>/{action}/", views.BulkChangeActionView.as_view(action=action),
           name=f"bulk_change_{action}")
      for action in views.ACTIONS),
]

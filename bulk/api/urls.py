from django.urls import path

from bulk.api import views

urlpatterns = [
    path("bulk-changes/", views.BulkChangeList.as_view(), name="api_bulk_change_list"),
    path("bulk-changes/<int:pk>/", views.BulkChangeDetail.as_view(),
         name="api_bulk_change_detail"),
    path("bulk-changes/<int:pk>/items/", views.BulkChangeItemList.as_view(),
         name="api_bulk_change_items"),
    path("bulk-changes/<int:pk>/apply/", views.BulkChangeApply.as_view(),
         name="api_bulk_change_apply"),
    path("bulk-changes/<int:pk>/pause/", views.BulkChangePause.as_view(),
         name="api_bulk_change_pause"),
    path("bulk-changes/<int:pk>/resume/", views.BulkChangeResume.as_view(),
         name="api_bulk_change_resume"),
    path("bulk-changes/<int:pk>/cancel/", views.BulkChangeCancel.as_view(),
         name="api_bulk_change_cancel"),
    path("bulk-changes/<int:pk>/rollback/", views.BulkChangeRollback.as_view(),
         name="api_bulk_change_rollback"),
]

# Listings out and in as files (bulk.api.file_views).
from bulk.api import file_views  # noqa: E402

urlpatterns += [
    path("listings/export/", file_views.ListingExport.as_view(), name="api_listing_export"),
    path("listing-imports/", file_views.ListingImportList.as_view(),
         name="api_listing_import_list"),
    path("listing-imports/<int:pk>/", file_views.ListingImportDetail.as_view(),
         name="api_listing_import_detail"),
    path("listing-imports/<int:pk>/apply/", file_views.ListingImportApply.as_view(),
         name="api_listing_import_apply"),
]

from django.urls import path

from bulk import file_page_views as views

urlpatterns = [
    path("listings/export/", views.ListingExportView.as_view(), name="listing_export"),
    path("listing-imports/", views.ListingImportListView.as_view(), name="listing_import_list"),
    path("listing-imports/columns/", views.ListingImportColumnsView.as_view(),
         name="listing_import_columns"),
    path("listing-imports/<int:pk>/", views.ListingImportDetailView.as_view(),
         name="listing_import_detail"),
    path("listing-imports/<int:pk>/apply/", views.ListingImportApplyView.as_view(),
         name="listing_import_apply"),
]

from django.urls import include, path

from accounts import rollup_views, views

urlpatterns = [
    path("businesses/", views.BusinessListView.as_view(), name="business_list"),
    path("businesses/export.csv", views.BusinessExportView.as_view(), name="business_export"),
    path("businesses/tree/", views.BusinessTreeView.as_view(), name="business_tree"),
    path("businesses/<int:remote_id>/reviews-summary/",
         rollup_views.BusinessReviewsSummaryView.as_view(), name="business_reviews_summary"),
    path("", include("accounts.settings_urls")),
    path("", include("accounts.token_urls")),
]

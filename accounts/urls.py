from django.urls import include, path

from accounts import views

urlpatterns = [
    path("", views.TenantHomeView.as_view(), name="tenant_home"),
    path("businesses/", views.BusinessListView.as_view(), name="business_list"),
    path("businesses/export.csv", views.BusinessExportView.as_view(), name="business_export"),
    path("businesses/tree/", views.BusinessTreeView.as_view(), name="business_tree"),
    path("businesses/<int:remote_id>/", views.BusinessDetailView.as_view(),
         name="business_detail"),
    path("businesses/<int:remote_id>/hierarchy/", views.BusinessHierarchyView.as_view(),
         name="business_hierarchy"),
    path("", include("accounts.settings_urls")),
    path("", include("accounts.token_urls")),
]

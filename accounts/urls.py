from django.urls import include, path

from accounts import views
from portal.placeholders import PlaceholderView

urlpatterns = [
    path("", views.TenantHomeView.as_view(), name="tenant_home"),
    path("businesses/", PlaceholderView.as_view(), name="business_list"),
    path("businesses/export.csv", PlaceholderView.as_view(), name="business_export"),
    path("businesses/tree/", PlaceholderView.as_view(), name="business_tree"),
    path("businesses/<int:remote_id>/", PlaceholderView.as_view(), name="business_detail"),
    path("businesses/<int:remote_id>/hierarchy/", PlaceholderView.as_view(),
         name="business_hierarchy"),
    path("", include("accounts.settings_urls")),
]

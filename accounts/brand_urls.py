from django.urls import path

from accounts import brand_views

urlpatterns = [
    path("settings/brand/", brand_views.BrandSettingsView.as_view(), name="settings_brand"),
    path("settings/brand/logo/", brand_views.BrandLogoUploadView.as_view(),
         name="settings_brand_logo"),
    path("settings/brand/logo/remove/", brand_views.BrandLogoRemoveView.as_view(),
         name="settings_brand_logo_remove"),
    # The files the pages link to; public on the reseller's own address (brand_views).
    path("brand/logo/", brand_views.BrandLogoView.as_view(), name="brand_logo"),
    path("brand/style.css", brand_views.BrandStylesheetView.as_view(), name="brand_stylesheet"),
]

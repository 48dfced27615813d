from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

# Every page of a reseller lives under /t/<slug>/; each app contributes its own part.
tenant_patterns = [
    path("", include("accounts.urls")),
    path("", include("listings.urls")),
    path("", include("media_app.urls")),
    path("", include("reviews_app.urls")),
]

api_tenant_patterns = [
    path("", include("accounts.api.urls")),
    path("", include("listings.api.urls")),
    path("", include("media_app.api.urls")),
    path("", include("reviews_app.api.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api_schema"), name="api_docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api_schema"), name="api_redoc"),
    path("api/v1/t/<slug:slug>/", include(api_tenant_patterns)),
    path("accounts/", include("accounts.auth_urls")),
    path("", include("accounts.home_urls")),
    path("t/<slug:slug>/", include(tenant_patterns)),
]

if settings.SANDBOX_ENABLED:
    urlpatterns.append(path("sandbox/", include("sandbox.urls")))

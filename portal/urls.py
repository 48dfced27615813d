from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularSwaggerSplitView,
)

from portal.api.docs_views import RedocView

# Every page of a reseller lives under /t/<slug>/; each app contributes its own part.
tenant_patterns = [
    path("", include("dashboard.urls")),
    path("", include("accounts.urls")),
    path("", include("sync.urls")),
    path("", include("outbox.urls")),
    path("", include("listings.urls")),
    path("", include("media_app.urls")),
    path("", include("reviews_app.urls")),
    path("", include("events.urls")),
    path("", include("history.urls")),
    path("", include("alerts.urls")),
    path("", include("bulk.urls")),
    path("", include("bulk.file_urls")),
    path("", include("reports.urls")),
]

api_tenant_patterns = [
    path("", include("accounts.api.urls")),
    path("", include("sync.api.urls")),
    path("", include("outbox.api.urls")),
    path("", include("listings.api.urls")),
    path("", include("media_app.api.urls")),
    path("", include("reviews_app.api.urls")),
    path("", include("events.api.urls")),
    path("", include("bulk.api.urls")),
    path("", include("history.api.urls")),
    path("", include("alerts.api.urls")),
    path("", include("reports.api.urls")),
]

# Redoc injects the style of its components at run time and builds its search index in a
# worker from a blob: URL; neither can be moved to a file, so only this page allows them.
redoc_view = csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"]})(
    RedocView.as_view(url_name="api_schema", template_name="api/redoc.html"))

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api_schema"),
    # The Swagger UI loads its start-up script as a file of its own, so both documentation
    # pages run under the CSP without inline script or style.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(
        url_name="api_schema", template_name="api/swagger_ui.html"), name="api_docs"),
    path("api/redoc/", redoc_view, name="api_redoc"),
    path("api/v1/t/<slug:slug>/", include(api_tenant_patterns)),
    path("accounts/", include("accounts.auth_urls")),
    path("hooks/", include("events.hook_urls")),
    path("", include("accounts.home_urls")),
    path("t/<slug:slug>/", include(tenant_patterns)),
]

if settings.SANDBOX_ENABLED:
    urlpatterns.append(path("sandbox/", include("sandbox.urls")))

# Error pages in the portal's layout; /api/ paths answer the API's JSON error shape instead.
handler400 = "portal.error_views.bad_request"
handler403 = "portal.error_views.permission_denied"
handler404 = "portal.error_views.page_not_found"
handler500 = "portal.error_views.server_error"

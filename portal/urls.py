from django.conf import settings
from django.contrib import admin
from django.urls import include, path

# Every page of a reseller lives under /t/<slug>/; each app contributes its own part.
tenant_patterns = [
    path("", include("accounts.urls")),
    path("", include("listings.urls")),
    path("", include("media_app.urls")),
    path("", include("reviews_app.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.auth_urls")),
    path("", include("accounts.home_urls")),
    path("t/<slug:slug>/", include(tenant_patterns)),
]

if settings.SANDBOX_ENABLED:
    urlpatterns.append(path("sandbox/", include("sandbox.urls")))

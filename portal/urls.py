from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.auth_urls")),
    path("", include("accounts.urls")),
]

if settings.SANDBOX_ENABLED:
    urlpatterns.append(path("sandbox/", include("sandbox.urls")))

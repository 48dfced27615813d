from django.urls import include, path

urlpatterns = [
    path("", include("reports.api.report_urls")),
    path("", include("reports.api.schedule_urls")),
]

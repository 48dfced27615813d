from django.urls import include, path

# The report itself (page, PDF) and its schedules live in modules of their own.
urlpatterns = [
    path("", include("reports.report_urls")),
    path("", include("reports.schedule_urls")),
]

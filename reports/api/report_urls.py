from django.urls import path

from reports.api import views

urlpatterns = [
    path("reports/render/", views.ReportRender.as_view(), name="api_report_render"),
    path("reports/summary/", views.ReportSummary.as_view(), name="api_report_summary"),
]

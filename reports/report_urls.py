from django.urls import path

from reports import views

urlpatterns = [
    path("reports/", views.ReportView.as_view(), name="report"),
    path("reports/pdf/", views.ReportPdfView.as_view(), name="report_pdf"),
]

from django.urls import path

from reports.api import schedule_views as views

urlpatterns = [
    path("report-schedules/", views.ReportScheduleList.as_view(),
         name="api_report_schedule_list"),
    path("report-schedules/<int:pk>/", views.ReportScheduleDetail.as_view(),
         name="api_report_schedule_detail"),
    path("sent-reports/", views.SentReportList.as_view(), name="api_sent_report_list"),
    path("sent-reports/<int:pk>/pdf/", views.SentReportPdf.as_view(),
         name="api_sent_report_pdf"),
]

from django.urls import path

from reports import schedule_views as views

urlpatterns = [
    path("reports/schedules/", views.ScheduleListView.as_view(), name="report_schedule_list"),
    path("reports/schedules/new/", views.ScheduleNewView.as_view(), name="report_schedule_new"),
    path("reports/schedules/preview/", views.SchedulePreviewView.as_view(),
         name="report_schedule_preview"),
    path("reports/schedules/<int:pk>/", views.ScheduleEditView.as_view(),
         name="report_schedule_edit"),
    path("reports/schedules/<int:pk>/delete/", views.ScheduleDeleteView.as_view(),
         name="report_schedule_delete"),
    path("reports/schedules/<int:pk>/send-now/", views.ScheduleSendNowView.as_view(),
         name="report_schedule_send_now"),
    path("reports/sent/", views.SentReportListView.as_view(), name="sent_report_list"),
    path("reports/sent/<int:pk>/pdf/", views.SentReportPdfView.as_view(),
         name="sent_report_pdf"),
]

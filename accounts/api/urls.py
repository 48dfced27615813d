from django.urls import path

from accounts.api import views

urlpatterns = [
    path("businesses/", views.BusinessList.as_view(), name="api_business_list"),
    path("businesses/<int:remote_id>/", views.BusinessDetail.as_view(),
         name="api_business_detail"),
    path("businesses/<int:remote_id>/children/", views.BusinessChildren.as_view(),
         name="api_business_children"),
]

urlpatterns += [
    path("businesses/<int:remote_id>/hierarchy/", views.BusinessHierarchy.as_view(),
         name="api_business_hierarchy"),
    path("audit-events/", views.AuditEventList.as_view(), name="api_audit_event_list"),
    path("changes/", views.ChangeList.as_view(), name="api_change_list"),
    path("changes/<int:pk>/", views.ChangeDetail.as_view(), name="api_change_detail"),
    path("changes/<int:pk>/retry/", views.ChangeRetry.as_view(), name="api_change_retry"),
]

from django.urls import path

from accounts.api import brand, views

urlpatterns = [
    path("businesses/", views.BusinessList.as_view(), name="api_business_list"),
    path("businesses/<int:remote_id>/", views.BusinessDetail.as_view(),
         name="api_business_detail"),
    path("businesses/<int:remote_id>/children/", views.BusinessChildren.as_view(),
         name="api_business_children"),
]

urlpatterns += [
    path("audit-events/", views.AuditEventList.as_view(), name="api_audit_event_list"),
    path("connection/", views.Connection.as_view(), name="api_connection"),
]

urlpatterns += [
    path("brand/", brand.BrandDetail.as_view(), name="api_brand"),
    path("brand/logo/", brand.BrandLogoDetail.as_view(), name="api_brand_logo"),
]

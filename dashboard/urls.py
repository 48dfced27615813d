from django.urls import path

from dashboard import views

urlpatterns = [
    path("", views.TenantHomeView.as_view(), name="tenant_home"),
]

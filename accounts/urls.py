from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("t/", views.ResellerPickerView.as_view(), name="reseller_picker"),
    path("t/<slug:slug>/", views.TenantHomeView.as_view(), name="tenant_home"),
]

from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("t/", views.ResellerPickerView.as_view(), name="reseller_picker"),
]

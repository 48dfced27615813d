from django.urls import path

from outbox.api import views

urlpatterns = [
    path("changes/", views.ChangeList.as_view(), name="api_change_list"),
    path("changes/<int:pk>/", views.ChangeDetail.as_view(), name="api_change_detail"),
    path("changes/<int:pk>/retry/", views.ChangeRetry.as_view(), name="api_change_retry"),
    path("changes/<int:pk>/arrived/", views.ChangeArrived.as_view(), name="api_change_arrived"),
]

from django.urls import path

from outbox import views

urlpatterns = [
    path("changes/<int:pk>/resolve/", views.ChangeResolveView.as_view(), name="change_resolve"),
]

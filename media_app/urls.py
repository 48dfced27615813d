from django.urls import path

from media_app import views

urlpatterns = [
    path("businesses/<int:remote_id>/media/", views.BusinessMediaView.as_view(),
         name="business_media"),
]

from django.urls import path

from media_app.api import views

urlpatterns = [
    path("businesses/<int:remote_id>/media/", views.BusinessMediaList.as_view(),
         name="api_business_media"),
]

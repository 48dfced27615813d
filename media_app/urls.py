from django.urls import path

from portal.placeholders import PlaceholderView

urlpatterns = [
    path("businesses/<int:remote_id>/media/", PlaceholderView.as_view(), name="business_media"),
]

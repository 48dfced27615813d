from django.urls import path

from portal.placeholders import PlaceholderView

urlpatterns = [
    path("businesses/<int:remote_id>/listing/", PlaceholderView.as_view(), name="listing_edit"),
]

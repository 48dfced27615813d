from django.urls import path

from listings.editor import views

urlpatterns = [
    path("businesses/<int:remote_id>/listing/", views.ListingEditView.as_view(),
         name="listing_edit"),
    path("businesses/<int:remote_id>/listing/versions/<int:number>/state/",
         views.ListingVersionStateView.as_view(), name="listing_version_state"),
    path("businesses/<int:remote_id>/listing/versions/<int:number>/retry/",
         views.ListingVersionRetryView.as_view(), name="listing_version_retry"),
]

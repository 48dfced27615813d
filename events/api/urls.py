from django.urls import path

from events.api import views

urlpatterns = [
    path("events/", views.ProviderEventList.as_view(), name="api_provider_event_list"),
    path("events/<int:pk>/", views.ProviderEventDetail.as_view(),
         name="api_provider_event_detail"),
    path("live-updates/", views.EventReceiverView.as_view(), name="api_event_receiver"),
]

from django.urls import path

from events import views

urlpatterns = [
    path("events/", views.ProviderEventListView.as_view(), name="provider_event_list"),
    path("events/live-updates/", views.EventReceiverEnableView.as_view(),
         name="event_receiver_enable"),
    path("events/live-updates/off/", views.EventReceiverDisableView.as_view(),
         name="event_receiver_disable"),
    path("events/<int:pk>/", views.ProviderEventDetailView.as_view(),
         name="provider_event_detail"),
]

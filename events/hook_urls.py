from django.urls import path

from events.webhook import provider_event_receive

urlpatterns = [
    path("provider/<str:public_id>/", provider_event_receive, name="provider_event_receive"),
]

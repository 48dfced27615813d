from django.urls import path

from accounts import token_views

urlpatterns = [
    path("tokens/", token_views.TokenListView.as_view(), name="api_tokens"),
    path("tokens/<int:pk>/revoke/", token_views.TokenRevokeView.as_view(),
         name="api_token_revoke"),
]

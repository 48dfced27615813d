from django.urls import include, path

from portal.placeholders import PlaceholderView

urlpatterns = [
    path("", include("listings.editor.urls")),
    path("businesses/<int:remote_id>/qna/", PlaceholderView.as_view(), name="business_qna"),
    path("custom-fields/", PlaceholderView.as_view(), name="custom_field_list"),
    path("ai-search/", PlaceholderView.as_view(), name="ai_search"),
    path("webhooks/", PlaceholderView.as_view(), name="subscription_list"),
]

from django.urls import path

from portal.placeholders import PlaceholderView

urlpatterns = [
    path("businesses/<int:remote_id>/reviews/", PlaceholderView.as_view(),
         name="business_reviews"),
    path("reports/competitors/", PlaceholderView.as_view(), name="competitor_metrics"),
    path("reports/ranking/", PlaceholderView.as_view(), name="competitive_ranking"),
    path("reports/surveys/", PlaceholderView.as_view(), name="survey_responses"),
]

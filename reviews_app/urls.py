from django.urls import path

from reviews_app import views

urlpatterns = [
    path("businesses/<int:remote_id>/reviews/", views.BusinessReviewsView.as_view(),
         name="business_reviews"),
    path("reports/competitors/", views.CompetitorMetricsView.as_view(),
         name="competitor_metrics"),
    path("reports/ranking/", views.CompetitiveRankingView.as_view(), name="competitive_ranking"),
    path("reports/surveys/", views.SurveyResponsesView.as_view(), name="survey_responses"),
    path("reports/surveys/<int:remote_id>/unfollow/", views.SurveyUnfollowConfirmView.as_view(),
         name="survey_unfollow_confirm"),
    path("reports/surveys/responses/<int:remote_id>/", views.SurveyResponseDetailView.as_view(),
         name="survey_response_detail"),
]

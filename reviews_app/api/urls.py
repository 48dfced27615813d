from django.urls import path

from reviews_app.api import views

urlpatterns = [
    path("businesses/<int:remote_id>/review-counts/", views.ReviewCountView.as_view(),
         name="api_review_counts"),
    path("competitor-metrics/", views.CompetitorMetricList.as_view(),
         name="api_competitor_metrics"),
    path("competitive-ranking/", views.CompetitiveRankingDetail.as_view(),
         name="api_competitive_ranking"),
    path("surveys/", views.SurveyListView.as_view(), name="api_surveys"),
    path("surveys/<int:remote_id>/", views.SurveyDetail.as_view(), name="api_survey_detail"),
    path("surveys/<int:remote_id>/responses/", views.SurveyResponseList.as_view(),
         name="api_survey_responses"),
    path("survey-responses/<int:remote_id>/", views.SurveyResponseDetail.as_view(),
         name="api_survey_response_detail"),
]

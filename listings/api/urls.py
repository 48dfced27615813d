from django.urls import path

from listings.api import views

urlpatterns = [
    path("businesses/<int:remote_id>/hierarchy/", views.BusinessHierarchy.as_view(),
         name="api_business_hierarchy"),
    path("businesses/<int:remote_id>/listing/", views.ListingView.as_view(),
         name="api_listing"),
    path("businesses/<int:remote_id>/listing/submissions/",
         views.ListingSubmissionList.as_view(), name="api_listing_submission_list"),
    path("businesses/<int:remote_id>/listing/submissions/<int:number>/",
         views.ListingSubmissionDetail.as_view(), name="api_listing_submission_detail"),
    path("businesses/<int:remote_id>/listing-status/refresh/",
         views.ListingStatusRefreshView.as_view(), name="api_listing_status_refresh"),
    path("businesses/<int:remote_id>/listing-status/", views.ListingStatusView.as_view(),
         name="api_listing_status"),
    path("businesses/<int:remote_id>/categories/fetch/", views.CategoryFetchView.as_view(),
         name="api_category_fetch"),
    path("businesses/<int:remote_id>/questions/", views.QuestionList.as_view(),
         name="api_question_list"),
    path("categories/", views.CategoryList.as_view(), name="api_category_list"),
    path("custom-fields/", views.CustomFieldList.as_view(), name="api_custom_field_list"),
    path("ai-search/", views.AiSearchDetail.as_view(), name="api_ai_search"),
    path("ai-search/refresh/", views.AiSearchRefresh.as_view(),
         name="api_ai_search_refresh"),
    path("subscriptions/", views.SubscriptionList.as_view(), name="api_subscription_list"),
    path("subscriptions/<str:remote_id>/", views.SubscriptionDetail.as_view(),
         name="api_subscription_detail"),
]

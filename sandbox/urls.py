"""The provider's paths of interface.md, served under /sandbox/."""

from django.urls import path, re_path

from sandbox.views import accounts, listings, media, meta, qna, reviews, subscriptions, surveys

app_name = "sandbox"

urlpatterns = [
    path("openapi.json", meta.openapi, name="openapi"),
    # 1, 12, 13
    path("v1/listing/<str:business_number>/create", listings.create_listing, name="create-listing"),
    path("v1/listing/status/location", listings.location_status_report, name="location-status"),
    path(
        "v1/listing/<str:business_number>/category-list",
        listings.category_list,
        name="category-list",
    ),
    # 2, 7, 8
    path("v1/competitors/review/metrics", reviews.competitor_metrics, name="competitor-metrics"),
    path(
        "v1/review/report/count-by-rating/<str:business_id>",
        reviews.count_by_rating,
        name="count-by-rating",
    ),
    path("v2/competitive/ranking", reviews.competitive_ranking, name="competitive-ranking"),
    # 3
    path(
        "v1/survey/ext/list/responses/<str:survey_id>",
        surveys.survey_responses,
        name="survey-responses",
    ),
    # 4, 5
    path("v1/business/<str:business_number>/upload/media", media.add_media, name="add-media"),
    path("v1/business/<str:business_number>/media/get", media.get_media, name="get-media"),
    # 6, 9, 14, 15
    path(
        "v1/business/public/custom-fields/create",
        accounts.create_custom_field,
        name="create-custom-field",
    ),
    path(
        "v1/business/business-hierarchy/location/update-mapping/<str:business_id>",
        accounts.update_hierarchy,
        name="update-hierarchy",
    ),
    path(
        "v1/listing/searchAi/public/account-setup",
        accounts.ai_search_configuration,
        name="ai-search-configuration",
    ),
    path("v1/business/child/all", accounts.child_businesses, name="child-businesses"),
    # 10, 11
    path("v1/qna/get", qna.get_questions, name="qna-get"),
    path("v1/qna/question/deleteAll", qna.delete_all_questions, name="qna-delete-all"),
    # 16 and the subscribe it undoes
    path("v1/subscriptions/subscribe", subscriptions.subscribe, name="subscribe"),
    path(
        "v1/subscriptions/unsubscribe/<str:subscription_id>",
        subscriptions.unsubscribe,
        name="unsubscribe",
    ),
    re_path(r"^(?P<unknown_path>.*)$", meta.not_found, name="not-found"),
]

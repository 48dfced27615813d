from django.urls import include, path

from listings import business_views, views

urlpatterns = [
    path("", include("listings.editor.urls")),
    path("businesses/<int:remote_id>/", business_views.BusinessDetailView.as_view(),
         name="business_detail"),
    path("businesses/<int:remote_id>/hierarchy/", business_views.BusinessHierarchyView.as_view(),
         name="business_hierarchy"),
    path("businesses/<int:remote_id>/qna/", views.BusinessQnaView.as_view(), name="business_qna"),
    path("businesses/<int:remote_id>/qna/delete/", views.QnaDeleteConfirmView.as_view(),
         name="qna_delete_confirm"),
    path("custom-fields/", views.CustomFieldListView.as_view(), name="custom_field_list"),
    path("ai-search/", views.AiSearchView.as_view(), name="ai_search"),
    path("webhooks/", views.SubscriptionListView.as_view(), name="subscription_list"),
    path("webhooks/<str:remote_id>/unsubscribe/", views.SubscriptionDeleteConfirmView.as_view(),
         name="subscription_delete_confirm"),
]

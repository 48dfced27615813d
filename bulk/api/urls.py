from django.urls import path

from bulk.api import views

urlpatterns = [
    path("bulk-changes/", views.BulkChangeList.as_view(), name="api_bulk_change_list"),
    path("bulk-changes/<int:pk>/", views.BulkChangeDetail.as_view(),
         name="api_bulk_change_detail"),
    path("bulk-changes/<int:pk>/items/", views.BulkChangeItemList.as_view(),
         name="api_bulk_change_items"),
]

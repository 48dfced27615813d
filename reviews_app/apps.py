from django.apps import AppConfig


class ReviewsAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews_app"
    verbose_name = "Reviews"

from django.apps import AppConfig


class HistoryConfig(AppConfig):
    """What the mirror held each day, kept for two years: the trends of the dashboard, of a
    business and of the account, and their API."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "history"
    verbose_name = "History"

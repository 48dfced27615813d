from django.apps import AppConfig


class ReportsConfig(AppConfig):
    """Client reports: a business subtree's results over a period as a page and as a PDF in the
    reseller's brand, and the schedules that email them."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "reports"
    verbose_name = "Reports"

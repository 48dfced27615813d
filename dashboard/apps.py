from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The reseller's dashboard: totals and charts read across every app."""

    name = "dashboard"
    verbose_name = "Dashboard"

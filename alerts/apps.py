from django.apps import AppConfig


class AlertsConfig(AppConfig):
    """Alerts: what went wrong or moved the wrong way, told to the members who follow it, in
    the portal and by email."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "alerts"
    verbose_name = "Alerts"

    def ready(self) -> None:
        from alerts import receivers
        from outbox.signals import entry_settled

        entry_settled.connect(receivers.outbox_entry_settled,
                              dispatch_uid="alerts.outbox_entry_settled")

from django.apps import AppConfig


class BulkConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bulk"
    verbose_name = "Bulk changes"

    def ready(self) -> None:
        from bulk import receivers
        from outbox.signals import entry_settled

        entry_settled.connect(receivers.outbox_entry_settled,
                              dispatch_uid="bulk.outbox_entry_settled")

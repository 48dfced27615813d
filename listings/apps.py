from django.apps import AppConfig


class ListingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "listings"

    def ready(self) -> None:
        # Registers the app's outbox handlers.
        import listings.editor.outbox_handlers  # noqa: F401
        import listings.outbox_handlers  # noqa: F401

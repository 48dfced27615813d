from django.apps import AppConfig


class MediaAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "media_app"
    verbose_name = "Media"

    def ready(self) -> None:
        # Registers the app's outbox handlers.
        import media_app.outbox_handlers  # noqa: F401

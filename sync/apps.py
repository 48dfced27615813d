from django.apps import AppConfig


class SyncConfig(AppConfig):
    """Syncs from the provider: runs, the tree walk, chunks of locations, account resources,
    progress. It drives every app's mirror, so it sits above them."""

    name = "sync"
    verbose_name = "Sync from the provider"

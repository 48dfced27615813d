from pathlib import Path

from django.apps import AppConfig
from django.conf import settings


class PortalConfig(AppConfig):
    name = "portal"

    def ready(self) -> None:
        from portal import checks  # noqa: F401 - registers the system checks

        for folder in local_folders():
            folder.mkdir(parents=True, exist_ok=True)


def local_folders() -> list[Path]:
    """The folders that the configured backends need and that nothing else creates.

    The settings only name folders, so that importing them creates nothing (a wheel's settings
    must not write into site-packages, nor a check into a read-only checkout); they are made
    here, at `django.setup()`, and only those the configuration uses. The file cache and the
    provider's file rate limiter make their own on first write; the filesystem broker's and
    beat's are made in `portal.celery`, by the processes that use Celery.
    """
    folders = []
    for database in settings.DATABASES.values():
        # SQLite does not create the folder of its file: `migrate` would fail on a fresh clone.
        name = str(database.get("NAME") or "")
        if (database.get("ENGINE") == "django.db.backends.sqlite3" and name
                and name != ":memory:" and not name.startswith("file:")):
            folders.append(Path(name).parent)
    if getattr(settings, "WHITENOISE_USE_FINDERS", False) and settings.STATIC_ROOT:
        # WhiteNoise warns about a missing STATIC_ROOT even when it serves from the finders
        # (development). In production it stays a warning worth having: collectstatic, which
        # creates the folder, was not run.
        folders.append(Path(settings.STATIC_ROOT))
    return folders

from django.db import models

from portal.models import Mirrored


class MediaItem(Mirrored):
    """A photo or video of a location, as the provider's media list returns it."""

    class Category(models.TextChoices):
        EXTERIOR = "EXTERIOR", "Exterior"
        INTERIOR = "INTERIOR", "Interior"
        TEAMS = "TEAMS", "Teams"
        ADDITIONAL = "ADDITIONAL", "Additional"

    class Format(models.TextChoices):
        PHOTO = "PHOTO", "Photo"
        VIDEO = "VIDEO", "Video"

    business = models.ForeignKey("accounts.Business", on_delete=models.CASCADE,
                                 related_name="media")
    remote_id = models.CharField(max_length=255)
    url = models.URLField(max_length=2000)
    category = models.CharField(max_length=16, db_index=True)
    description = models.TextField(blank=True)
    format = models.CharField(max_length=8, db_index=True)

    class Meta:
        verbose_name = "media item"
        constraints = [models.UniqueConstraint(fields=["reseller", "remote_id"],
                                               name="media_unique_remote_id")]
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.format} {self.url}"

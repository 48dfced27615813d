"""Abstract bases shared by the apps."""

from django.db import models

from portal.tenancy import TenantOwned


class Mirrored(TenantOwned):
    """A row mirrored from the provider.

    It keeps the provider's raw payload beside the typed columns the UI filters and sorts on,
    when it was last seen, and `removed_at` once the provider stops returning it (rows are never
    deleted by a sync; a row that comes back is restored).
    """

    raw = models.JSONField(default=dict, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta(TenantOwned.Meta):
        abstract = True

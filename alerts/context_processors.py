"""The bell of every page of a reseller: the member's unread notifications."""

from django.utils.functional import SimpleLazyObject

from alerts.selectors import notification_unread_count
from portal.tenancy import tenant_scope


def notifications(request):
    """`unread_notifications`, counted (one query) only when a page of a reseller shows it."""
    membership = getattr(request, "membership", None)
    if membership is None:
        return {}

    def count() -> int:
        # Error pages render after the view has left the tenant's scope.
        with tenant_scope(membership.reseller):
            return notification_unread_count(membership=membership)

    return {"unread_notifications": SimpleLazyObject(count)}

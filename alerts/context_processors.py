"""The bell of every page of a reseller: the member's unread notifications."""

from django.utils.functional import SimpleLazyObject

from alerts.selectors import notification_unread_count
from portal.tenancy import tenant_scope

# The bell shows "99+" beyond 99: counting further is work every page would pay for.
BELL_COUNTS_UP_TO = 100


def notifications(request):
    """`unread_notifications`, counted up to BELL_COUNTS_UP_TO (one query) only when a page of
    a reseller shows it."""
    membership = getattr(request, "membership", None)
    if membership is None:
        return {}

    def count() -> int:
        # Error pages render after the view has left the tenant's scope.
        with tenant_scope(membership.reseller):
            return notification_unread_count(membership=membership,
                                             at_most=BELL_COUNTS_UP_TO)

    return {"unread_notifications": SimpleLazyObject(count)}

"""Template context of every page: the tenant of the URL and the member's resellers."""

from accounts.selectors import membership_list_for_user


def tenancy(request):
    """The reseller and membership resolved by the tenant view mixin, and the switcher's list."""
    user = getattr(request, "user", None)
    switcher = membership_list_for_user(user=user) if user and user.is_authenticated else []
    return {
        "tenant": getattr(request, "tenant", None),
        "membership": getattr(request, "membership", None),
        "switcher_memberships": switcher,
    }

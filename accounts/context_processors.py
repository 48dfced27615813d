"""Template context of every page: the tenant of the URL, the member's resellers, and the
brand the page shows."""

from accounts.brand import brand_for_request
from accounts.selectors import membership_list_for_user


def tenancy(request):
    """The reseller and membership resolved by the tenant view mixin, the switcher's list, and
    the brand (`accounts.brand`): the tenant's, the reseller's own address's, or the portal's."""
    user = getattr(request, "user", None)
    signed_in = bool(user and user.is_authenticated)
    switcher = membership_list_for_user(user=user) if signed_in else []
    host_brand = getattr(request, "host_brand", None)
    if signed_in and host_brand is not None:
        # A reseller's own address leads into that reseller only.
        switcher = switcher.filter(reseller_id=host_brand.reseller_id)
    return {
        "tenant": getattr(request, "tenant", None),
        "membership": getattr(request, "membership", None),
        "switcher_memberships": switcher,
        "brand": brand_for_request(request),
    }

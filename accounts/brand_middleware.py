"""A reseller's own address (`portal.agency.example`): requests to it show that reseller's brand
and lead only into that reseller's portal.

On such a host:
- anyone sees the reseller's brand on the sign-in page (its logo and stylesheet are served
  there without signing in);
- its members land on its portal (`/` and the reseller list go straight to `/t/<slug>/`);
- a signed-in person who is not one of its members gets a page that sends them to the portal's
  main address, whatever they ask for (the sign-in page refuses them the same way:
  `accounts.brand_views.BrandLoginView`);
- no other reseller's page or API is served, to anyone: the same page says where to go.

Everywhere, `request.brand` holds the brand the error pages show (`portal.error_views` reads it
and nothing else, so that a 500 page never queries anything): the host's, or the portal's own,
and the tenant's once a tenant page fails.
"""

from __future__ import annotations

import logging

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve

from accounts.brand import (
    DEFAULT_BRAND,
    ResellerBrand,
    brand_admits,
    brand_for_host,
    brand_get,
    main_address,
    request_host_name,
)

logger = logging.getLogger(__name__)

# What anyone may reach on a reseller's address whoever they are: signing out, and the
# reseller's own logo and stylesheet (its sign-in page and this middleware's page show them).
OPEN_TO_ALL = frozenset({"logout", "brand_logo", "brand_stylesheet"})
# The reseller list and the home page: on a reseller's address there is only one reseller.
LANDING = frozenset({"home", "reseller_picker"})


def wrong_host_response(request, brand: ResellerBrand, reason: str, status: int = 403):
    """The page (or API answer) that says this address is the reseller's alone, and where the
    person should go instead. `reason`: not_member, sign_in_refused or other_reseller."""
    main = main_address(request)
    if request.path_info.startswith("/api/"):
        message = (f"This address serves {brand.product_name} only. Use the portal's main "
                   f"address{f' ({main})' if main else ''} for other resellers.")
        return JsonResponse({"code": "wrong_host", "message": message, "fields": {}},
                            status=status)
    context = {"brand": brand, "main_address": main, "reason": reason}
    return render(request, "accounts/wrong_host.html", context, status=status)


class BrandHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.brand = DEFAULT_BRAND
        request.host_brand = None
        # Without the database the host cannot be told apart: the error then goes up (a 500
        # page in the portal's look) rather than treating a reseller's address as the main one.
        host_brand = brand_for_host(request_host_name(request))
        if host_brand is None:
            return self.get_response(request)
        request.brand = request.host_brand = host_brand
        return self.refusal(request, host_brand) or self.get_response(request)

    def refusal(self, request, brand: ResellerBrand):
        try:
            match = resolve(request.path_info)
        except Resolver404:
            match = None
        name = match.url_name if match else ""
        slug = match.kwargs.get("slug") if match else None
        if slug is not None and slug != brand.slug:
            return wrong_host_response(request, brand, "other_reseller")
        if name in OPEN_TO_ALL:
            return None
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        if not brand_admits(user=user, brand=brand):
            return wrong_host_response(request, brand, "not_member")
        if name in LANDING:
            return redirect("tenant_home", slug=brand.slug)
        return None

    def process_exception(self, request, exception):
        """A tenant page failed: its error page shows the tenant's brand, read now, while the
        500 page itself reads nothing."""
        tenant = getattr(request, "tenant", None)
        if tenant is not None:
            try:
                request.brand = brand_get(tenant=tenant)
            except Exception:
                logger.exception("The brand of the failed page could not be read.")
        return None

"""Base views shared by every app: the tenant entry point, which asks the access policy."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.template.response import TemplateResponse

from accounts import access
from accounts.business_types import (
    EVERY_TYPE,
    BusinessTypes,
    locations_only,
    refusal_message,
    type_phrase,
)
from accounts.selectors import (
    business_detail_get,
    business_get,
    business_location_count,
    membership_for_entry,
)
from portal.tenancy import tenant_scope

__all__ = ["BusinessTabMixin", "TenantViewMixin", "locations_only"]

SAFE_METHODS = access.SAFE_METHODS


class TenantViewMixin(LoginRequiredMixin):
    """Resolves `/t/<slug>/` to the member's reseller and runs the view inside its scope.

    Non-members get 404, like a reseller that does not exist. What a member may do on the page
    is decided by `accounts.access` from the page's URL name (403 with the reason otherwise).
    """

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        membership = membership_for_entry(user=request.user, slug=kwargs["slug"])
        request.tenant = membership.reseller
        request.membership = membership
        self.tenant = membership.reseller
        self.membership = membership
        self.url_name = request.resolver_match.url_name
        access.check(name=self.url_name, method=request.method, role=membership.role,
                     limited=membership.limited_to_id is not None)
        with tenant_scope(membership.reseller):
            response = self.refusal(request) or super().dispatch(request, *args, **kwargs)
            # Template responses render lazily; render inside the scope so templates that
            # touch tenant-owned relations still see it.
            if hasattr(response, "render") and callable(response.render):
                response.render()
            return response

    def refusal(self, request):
        """A response that answers instead of the view (inside the tenant scope), or None."""
        return None

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["can_edit"] = self.may_change
        return context

    @property
    def may_change(self) -> bool:
        """Whether the member may change things through this page (its buttons and forms)."""
        return access.allows(self.membership, self.url_name, write=True)


class BusinessTabMixin(TenantViewMixin):
    """A page of one business, named by `remote_id` in the URL: 404 outside the tenant or the
    member's subtree. Pages with `removed_shown` also open for a removed business (they say
    so), and hide a parent that lies outside the member's subtree.

    `business_types` says which types of business the page applies to (`accounts.business_types`):
    for any other the page answers what applies instead, and the view does not run."""

    removed_shown = False
    business_types: BusinessTypes = EVERY_TYPE

    def refusal(self, request):
        if self.business_types is EVERY_TYPE:
            return None
        business = self.get_business()
        if self.business_types.supports(business):
            return None
        context = {"business": business, "message": refusal_message(business,
                                                                    self.business_types),
                   "subject": self.business_types.subject, "type_phrase": type_phrase(business),
                   "location_count": business_location_count(
                       tenant=self.tenant, membership=self.membership, business=business)}
        # A page to read, not an error; a change sent to it is refused, nothing is done.
        status = 200 if request.method in ("GET", "HEAD") else 409
        return TemplateResponse(request, "accounts/business_not_supported.html", context,
                                status=status)

    def get_business(self):
        if not hasattr(self, "_business"):
            find = business_detail_get if self.removed_shown else business_get
            self._business = find(tenant=self.tenant, membership=self.membership,
                                  remote_id=self.kwargs["remote_id"])
        return self._business

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["business"] = self.get_business()
        return context

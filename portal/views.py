"""Base views shared by every app: the tenant entry point and role checks."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied

from accounts.models import Role
from accounts.selectors import membership_for_entry
from portal.tenancy import tenant_scope

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class TenantViewMixin(LoginRequiredMixin):
    """Resolves `/t/<slug>/` to the member's reseller and runs the view inside its scope.

    Non-members get 404, like a reseller that does not exist. Reading needs `read_role`;
    any other method needs `write_role` (managers by default), else 403.
    """

    read_role: str = Role.VIEWER
    write_role: str = Role.MANAGER

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        membership = membership_for_entry(user=request.user, slug=kwargs["slug"])
        required = self.read_role if request.method in SAFE_METHODS else self.write_role
        if not membership.has_role(required):
            raise PermissionDenied("Your role does not allow this.")
        request.tenant = membership.reseller
        request.membership = membership
        self.tenant = membership.reseller
        self.membership = membership
        with tenant_scope(membership.reseller):
            response = super().dispatch(request, *args, **kwargs)
            # Template responses render lazily; render inside the scope so templates that
            # touch tenant-owned relations still see it.
            if hasattr(response, "render") and callable(response.render):
                response.render()
            return response

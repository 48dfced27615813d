"""Scaffolding: pages whose URL names exist so navigation can link to them before they are
built. Each is replaced by its app's real view; none may remain when the UI issue is resolved."""

from django.views.generic import TemplateView

from portal.views import TenantViewMixin


class PlaceholderView(TenantViewMixin, TemplateView):
    template_name = "placeholder.html"

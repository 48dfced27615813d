"""The dashboard page."""

from django.views.generic import TemplateView

from accounts.tenant_views import TenantViewMixin
from dashboard.summary import dashboard_summary
from history.trends import trends_build


class TenantHomeView(TenantViewMixin, TemplateView):
    """The dashboard: totals, listing health, reviews, trends, recent syncs, locations needing
    action."""

    template_name = "accounts/tenant_home.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        dashboard = dashboard_summary(tenant=self.tenant, membership=self.membership)
        context["dashboard"] = dashboard
        context["business_count"] = dashboard.business_count
        context["location_count"] = dashboard.location_count
        context["trends"] = trends_build(tenant=self.tenant, membership=self.membership)
        return context

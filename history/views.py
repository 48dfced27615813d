"""The trends pages: the account's (or a limited member's subtree's) and a business's."""

from __future__ import annotations

from django.conf import settings
from django.views.generic import TemplateView

from accounts.tenant_views import BusinessTabMixin, TenantViewMixin
from history.selectors import INTERVALS
from history.trends import trends_build

INTERVAL_CHOICES = [("week", "Week by week, half a year"), ("month", "Month by month, two years"),
                    ("day", "Day by day, three months")]


def _interval(request) -> str:
    interval = request.GET.get("interval", "week")
    return interval if interval in INTERVALS else "week"


class AccountTrendsView(TenantViewMixin, TemplateView):
    """How the account's figures moved: period over period and charts over time. A member
    limited to a subtree sees their subtree's."""

    template_name = "history/trends.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        interval = _interval(self.request)
        context["trends"] = trends_build(tenant=self.tenant, membership=self.membership,
                                         interval=interval, account_figures=True)
        context["interval_choices"] = INTERVAL_CHOICES
        context["lookback_days"] = settings.SYNC_REPORT_LOOKBACK_DAYS
        return context


class BusinessTrendsView(BusinessTabMixin, TemplateView):
    """A business's trends: a location's own figures, a reseller's or an enterprise's summed
    over its locations. `?fragment=1` answers the card alone, which the business's overview
    puts in place."""

    removed_shown = True

    def get_template_names(self):
        if self.request.GET.get("fragment"):
            return ["history/_business_trends_card.html"]
        return ["history/business_trends.html"]

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        interval = _interval(self.request)
        context["trends"] = trends_build(tenant=self.tenant, membership=self.membership,
                                         business=context["business"], interval=interval)
        context["interval_choices"] = INTERVAL_CHOICES
        return context

"""Roll-ups shown on the overview of a reseller or an enterprise that must be asked of the
provider: loaded by the overview after it is shown (so that a slow provider never holds the
page), or opened as a page of their own without JavaScript."""

from __future__ import annotations

from django.views.generic import TemplateView

from accounts.rollups import business_reviews_rollup_fetch
from accounts.tenant_views import BusinessTabMixin
from portal.exceptions import ProviderUnavailable


class BusinessReviewsSummaryView(BusinessTabMixin, TemplateView):
    """The review count and average of the locations under a business; `?fragment=1` answers
    the card alone, for the overview to put in place."""

    def get_template_names(self):
        if self.request.GET.get("fragment"):
            return ["accounts/_business_reviews_summary.html"]
        return ["accounts/business_reviews_summary.html"]

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        try:
            context["reviews"] = business_reviews_rollup_fetch(tenant=self.tenant,
                                                               business=context["business"])
        except ProviderUnavailable as exc:
            context["provider_error"] = str(exc)
        return context

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import redirect
from django.views.generic import TemplateView, View

from accounts.selectors import business_list, membership_list_for_user
from portal.views import TenantViewMixin


class HomeView(LoginRequiredMixin, View):
    """Straight to the reseller when there is one, else the picker."""

    def get(self, request):
        memberships = list(membership_list_for_user(user=request.user)[:2])
        if len(memberships) == 1:
            return redirect("tenant_home", slug=memberships[0].reseller.slug)
        return redirect("reseller_picker")


class ResellerPickerView(LoginRequiredMixin, TemplateView):
    template_name = "accounts/reseller_picker.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["memberships"] = membership_list_for_user(user=self.request.user)
        return context


class TenantHomeView(TenantViewMixin, TemplateView):
    template_name = "accounts/tenant_home.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        businesses = business_list(tenant=self.tenant, membership=self.membership)
        context["business_count"] = businesses.count()
        context["location_count"] = businesses.filter(type="Business").count()
        return context

"""Your profile: a signed-in person's own name and time zone, whatever reseller they are in.

It belongs to no tenant (like the password change it links to), so it is routed beside the
sign-in pages rather than under /t/<slug>/ and the access policy has no rule for it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.views.generic import TemplateView

from accounts.profile_forms import ProfileForm
from accounts.profile_services import user_profile_update
from accounts.selectors import membership_list_for_user
from portal.forms import add_service_errors


class ProfileView(LoginRequiredMixin, TemplateView):
    template_name = "accounts/profile.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(form=form or ProfileForm(user=self.request.user),
                       memberships=membership_list_for_user(user=self.request.user))
        return context

    def post(self, request, *args, **kwargs):
        form = ProfileForm(request.POST, user=request.user)
        if form.is_valid():
            try:
                user_profile_update(user=request.user, **form.cleaned_data)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, "Your profile is saved.")
                return redirect("profile")
        return self.render_to_response(self.get_context_data(form=form), status=400)

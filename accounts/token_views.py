"""API tokens page, for every member: their own tokens, creating one (shown once), revoking."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect
from django.views.generic import TemplateView

from accounts.models import ROLE_RANK, Membership, Role
from accounts.selectors import own_token_get, own_token_list
from accounts.tenant_views import TenantViewMixin
from accounts.tokens import TokenRoleTooHigh, api_token_create, api_token_revoke


class TokenCreateForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100, strip=True,
                           help_text="What uses this token, e.g. “client portal”.")
    role = forms.ChoiceField(label="Role", help_text="At most your own role; a token can "
                                                     "never do more than you can.")

    def __init__(self, *args, membership: Membership, **kwargs):
        super().__init__(*args, **kwargs)
        own = ROLE_RANK[Role(membership.role)]
        self.fields["role"].choices = [(value, label) for value, label in Role.choices
                                       if ROLE_RANK[Role(value)] <= own]
        self.fields["role"].initial = Role.VIEWER


class TokenMixin(TenantViewMixin):
    """Every member manages their own tokens, viewers included (a PERSONAL rule of the
    access policy)."""


class TokenListView(TokenMixin, TemplateView):
    template_name = "accounts/tokens.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(tokens=own_token_list(membership=self.membership),
                       form=form or TokenCreateForm(membership=self.membership))
        return context

    def post(self, request, *args, **kwargs):
        form = TokenCreateForm(request.POST, membership=self.membership)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form), status=400)
        try:
            token, plaintext = api_token_create(
                tenant=self.tenant, actor=request.user, user=request.user,
                name=form.cleaned_data["name"], role=form.cleaned_data["role"])
        except TokenRoleTooHigh as exc:
            form.add_error("role", str(exc))
            return self.render_to_response(self.get_context_data(form=form), status=400)
        # The only time the plaintext exists outside the client: shown once, never cached.
        response = self.response_class(
            request=request, template=["accounts/tokens_created.html"],
            context=self.get_context_data(created=token, plaintext=plaintext))
        response["Cache-Control"] = "no-store"
        return response


class TokenRevokeView(TokenMixin, TemplateView):
    template_name = "accounts/tokens_revoke.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["token"] = own_token_get(membership=self.membership, pk=kwargs["pk"])
        return context

    def post(self, request, *args, **kwargs):
        token = own_token_get(membership=self.membership, pk=kwargs["pk"])
        api_token_revoke(tenant=self.tenant, actor=request.user, token=token)
        messages.success(request, f"Token “{token.name}” revoked; it no longer works.")
        return redirect("api_tokens", slug=self.tenant.slug)

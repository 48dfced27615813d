"""Settings pages, for owners only: the provider connection, members, the audit log."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_post_parameters
from django.views.generic import TemplateView, View

from accounts.audit_labels import action_label, object_label
from accounts.models import Role
from accounts.provider_access import learned_rate
from accounts.settings_forms import (
    LIMIT_DATALIST_ID,
    AuditFilterForm,
    ConnectionForm,
    InviteForm,
    MemberForm,
)
from accounts.settings_selectors import (
    audit_action_choices,
    audit_business_names,
    audit_event_search,
    limit_suggestions,
    member_get,
    member_list,
)
from accounts.settings_services import (
    member_invite,
    member_remove,
    member_update,
    reseller_connection_test,
    reseller_connection_update,
)
from accounts.tenant_views import TenantViewMixin

AUDIT_PAGE_SIZE = 50
FIELD_NAMES = {"provider_base_url": "base URL", "account_number": "account number",
               "rate_limit_count": "rate limit", "rate_limit_seconds": "rate limit window",
               "rate_limit_auto": "learned rate limit", "wire_dialect": "names on the wire",
               "api_key": "API key", "time_zone": "time zone"}


def _add_errors(form, exc: ValidationError, field: str | None = None) -> None:
    if hasattr(exc, "error_dict"):
        form.add_error(None, exc)
    else:
        form.add_error(field, exc)


# -- provider connection -----------------------------------------------------------------------


@method_decorator(sensitive_post_parameters("api_key"), name="dispatch")
class ConnectionView(TenantViewMixin, TemplateView):
    template_name = "accounts/settings_connection.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["form"] = kwargs.get("form") or ConnectionForm(reseller=self.tenant)
        context["learned_rate"] = learned_rate(self.tenant)
        return context

    def post(self, request, *args, **kwargs):
        form = ConnectionForm(request.POST, reseller=self.tenant)
        if form.is_valid():
            try:
                changed = reseller_connection_update(tenant=self.tenant, actor=request.user,
                                                     **form.cleaned_data)
            except ValidationError as exc:
                _add_errors(form, exc)
            else:
                if changed:
                    names = ", ".join(FIELD_NAMES.get(name, name) for name in changed)
                    messages.success(request, f"Saved the connection settings ({names}).")
                else:
                    messages.info(request, "Nothing changed.")
                return redirect("settings_connection", slug=self.tenant.slug)
        key_typed = bool(request.POST.get("api_key", "").strip())
        return self.render_to_response(
            self.get_context_data(form=form, key_not_saved=key_typed), status=400)


class TestConnectionView(TenantViewMixin, View):
    """POST only: call the provider with the saved settings and report its answer."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        result = reseller_connection_test(tenant=self.tenant, actor=request.user)
        level = messages.SUCCESS if result.ok else messages.ERROR
        messages.add_message(request, level, result.message, extra_tags="connection-test")
        return redirect("settings_connection", slug=self.tenant.slug)


# -- members -----------------------------------------------------------------------------------


class _MemberFormMixin:
    def limit_context(self) -> dict:
        return {
            "limit_datalist_id": LIMIT_DATALIST_ID,
            "limit_suggestions": limit_suggestions(tenant=self.tenant,
                                                   membership=self.membership),
        }


class MemberListView(TenantViewMixin, _MemberFormMixin, TemplateView):
    template_name = "accounts/settings_members.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(self.limit_context())
        context["members"] = member_list(tenant=self.tenant, membership=self.membership)
        context["form"] = kwargs.get("form") or InviteForm(tenant=self.tenant,
                                                           actor_membership=self.membership)
        return context

    def post(self, request, *args, **kwargs):
        form = InviteForm(request.POST, tenant=self.tenant, actor_membership=self.membership)
        if form.is_valid():
            try:
                membership, created = member_invite(
                    tenant=self.tenant, actor=request.user, email=form.cleaned_data["email"],
                    role=form.cleaned_data["role"], limited_to=form.cleaned_data["limited_to"],
                    domain=request.get_host(), use_https=request.is_secure(),
                    actor_membership=self.membership)
            except ValidationError as exc:
                _add_errors(form, exc, "email")
            else:
                # The same words whether or not the address already had an account, so the
                # page tells no one which addresses are known.
                messages.success(request, f"Added {membership.user.email} as "
                                          f"{membership.get_role_display().lower()} and sent "
                                          "them an invitation email.")
                return redirect("settings_members", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class MemberEditView(TenantViewMixin, _MemberFormMixin, TemplateView):
    template_name = "accounts/settings_member_edit.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(self.limit_context())
        member = kwargs.get("member") or member_get(tenant=self.tenant, pk=kwargs["pk"],
                                                    membership=self.membership)
        context["member"] = member
        context["form"] = kwargs.get("form") or MemberForm(
            tenant=self.tenant, actor_membership=self.membership, membership=member)
        return context

    def post(self, request, *args, **kwargs):
        member = member_get(tenant=self.tenant, pk=kwargs["pk"], membership=self.membership)
        form = MemberForm(request.POST, tenant=self.tenant, actor_membership=self.membership,
                          membership=member)
        if form.is_valid():
            try:
                member_update(tenant=self.tenant, actor=request.user, membership=member,
                              role=form.cleaned_data["role"],
                              limited_to=form.cleaned_data["limited_to"],
                              actor_membership=self.membership)
            except ValidationError as exc:
                _add_errors(form, exc, "role")
            else:
                messages.success(request, f"Saved {member.user.email}'s access.")
                if member.pk == self.membership.pk and (
                        form.cleaned_data["role"] != Role.OWNER
                        or form.cleaned_data["limited_to"] != self.membership.limited_to):
                    return redirect("tenant_home", slug=self.tenant.slug)
                return redirect("settings_members", slug=self.tenant.slug)
        return self.render_to_response(
            self.get_context_data(form=form, member=member, **kwargs), status=400)


class MemberRemoveView(TenantViewMixin, TemplateView):
    """A confirmation page that names the person; POST removes them."""

    template_name = "accounts/settings_member_remove.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["member"] = kwargs.get("member") or member_get(
            tenant=self.tenant, pk=kwargs["pk"], membership=self.membership)
        return context

    def post(self, request, *args, **kwargs):
        member = member_get(tenant=self.tenant, pk=kwargs["pk"], membership=self.membership)
        try:
            member_remove(tenant=self.tenant, actor=request.user, membership=member,
                          actor_membership=self.membership)
        except ValidationError as exc:
            return self.render_to_response(
                self.get_context_data(member=member, error=" ".join(exc.messages), **kwargs),
                status=400)
        messages.success(request, f"Removed {member.user.email} from {self.tenant.name}.")
        if member.pk == self.membership.pk:
            return redirect("home")
        return redirect("settings_members", slug=self.tenant.slug)


# -- audit log ---------------------------------------------------------------------------------


def summary_text(summary) -> str:
    if not isinstance(summary, dict):
        return str(summary or "")
    parts = []
    for key, value in summary.items():
        if isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value) or "–"
        elif value is None:
            value = "–"
        parts.append(f"{key.replace('_', ' ')}: {value}")
    return "; ".join(parts)


class AuditLogView(TenantViewMixin, TemplateView):
    template_name = "accounts/settings_audit.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        form = AuditFilterForm(self.request.GET or None,
                               actions=audit_action_choices(tenant=self.tenant))
        filters = {}
        if form.is_bound:
            form.is_valid()
            filters = {k: v for k, v in form.cleaned_data.items() if v}
        events = audit_event_search(tenant=self.tenant, **filters)
        page_obj = Paginator(events, AUDIT_PAGE_SIZE).get_page(self.request.GET.get("page"))
        businesses = audit_business_names(tenant=self.tenant, events=page_obj.object_list)
        for event in page_obj.object_list:
            event.summary_text = summary_text(event.summary)
            event.action_label = action_label(event.action)
            event.object_label = object_label(event.object_type)
            event.object_name = businesses.get(event.object_id, event.object_id) if (
                event.object_type == "accounts.business") else event.object_id
        context.update(form=form, page_obj=page_obj, events=page_obj.object_list,
                       filtered=bool(filters))
        return context

"""The outbox's page: a change in doubt, and the member's decision about it."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.generic import TemplateView

from accounts.tenant_views import TenantViewMixin
from outbox.models import OutboxEntry
from outbox.selectors import outbox_entry_visible
from outbox.services import handler_for, outbox_mark_arrived, outbox_retry

DECISIONS = ("arrived", "send_again")


class ChangeResolveView(TenantViewMixin, TemplateView):
    """What is known of a change in doubt, and the two ways out: it arrived, or send it again."""

    template_name = "outbox/change_resolve.html"

    def get_entry(self) -> OutboxEntry:
        entry = (outbox_entry_visible(tenant=self.tenant, membership=self.membership)
                 .select_related("business", "created_by").filter(pk=self.kwargs["pk"]).first())
        if entry is None:
            raise Http404("No such change.")
        return entry

    def back_url(self) -> str:
        target = self.request.POST.get("next") or self.request.GET.get("next") or ""
        if target and url_has_allowed_host_and_scheme(
                target, allowed_hosts={self.request.get_host()},
                require_https=self.request.is_secure()):
            return target
        return ""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        entry = self.get_entry()
        context.update(entry=entry, next=self.back_url(),
                       resend_effect=getattr(handler_for(entry.kind), "resend_effect", ""))
        return context

    def post(self, request, *args, **kwargs):
        entry = self.get_entry()
        decision = request.POST.get("decision", "")
        if decision not in DECISIONS:
            messages.error(request, "Choose whether the change arrived or is to be sent again.")
            return redirect(request.path)
        try:
            if decision == "arrived":
                outbox_mark_arrived(tenant=self.tenant, actor=request.user, entry=entry)
                messages.success(request, f"“{entry.summary}” is recorded as arrived.")
            else:
                outbox_retry(tenant=self.tenant, actor=request.user, entry=entry)
                messages.success(request, f"“{entry.summary}” is queued to be sent again.")
        except ValueError as exc:
            messages.error(request, str(exc))
        return redirect(self.back_url() or request.path)

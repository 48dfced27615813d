"""The late-sites list and the directory delays' settings page."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.views.generic import TemplateView

from accounts.tenant_views import TenantViewMixin
from history.ageing import DEFAULT_SORT, late_sites
from history.ageing_forms import DirectoryDelayForm, LateSitesQueryForm
from history.delays import (
    ACTION_REQUIRED_GRACE_DAYS,
    LEARN_MIN_TRANSITIONS,
    directory_delay_set,
    directory_delays,
)
from portal.pagination import paginate

PAGE_SIZE = 50
# Sortable columns: (label, sort parameter); a second click reverses.
COLUMNS = [("Location", "location"), ("Site", "site"), ("Status", ""), ("Since", ""),
           ("Age", "-age"), ("Usual delay", ""), ("Late by", "-late_by"), ("What to do", "")]


def _headers(current: str) -> list[dict]:
    headers = []
    for label, sort in COLUMNS:
        header = {"label": label, "next": "", "aria_sort": ""}
        if sort:
            reverse = sort[1:] if sort.startswith("-") else f"-{sort}"
            if current == sort:
                header.update(next=reverse,
                              aria_sort="descending" if sort.startswith("-") else "ascending")
            elif current == reverse:
                header.update(next=sort,
                              aria_sort="ascending" if sort.startswith("-") else "descending")
            else:
                header["next"] = sort
        headers.append(header)
    return headers


class LateSitesView(TenantViewMixin, TemplateView):
    """The sites late against their directory's usual delay, most late first."""

    template_name = "history/late_sites.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        delays = directory_delays(tenant=self.tenant)
        form = LateSitesQueryForm(self.request.GET, delays=delays)
        page_obj = None
        sort = DEFAULT_SORT
        if form.is_valid():
            params = form.selector_kwargs()
            sort = params["sort"]
            page_obj = paginate(self.request, late_sites(
                tenant=self.tenant, membership=self.membership, delays=delays, **params),
                PAGE_SIZE)
        context.update(form=form, page_obj=page_obj, headers=_headers(sort),
                       filtered=any(self.request.GET.get(n) for n in form.fields if n != "sort"),
                       grace_days=ACTION_REQUIRED_GRACE_DAYS)
        return context


class DirectoryDelaysView(TenantViewMixin, TemplateView):
    """Each directory's usual delay: the portal's default, what the history learned, the
    reseller's own figure (owners change it) and the one that applies."""

    template_name = "history/directory_delays.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(delays=directory_delays(tenant=self.tenant),
                       learn_min=LEARN_MIN_TRANSITIONS,
                       grace_days=ACTION_REQUIRED_GRACE_DAYS,
                       failed=kwargs.get("failed"))
        return context

    def post(self, request, *args, **kwargs):
        form = DirectoryDelayForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                delay = directory_delay_set(tenant=self.tenant, actor=request.user,
                                            site_id=data["site_id"], days=data["days"],
                                            in_progress_days=data["in_progress_days"])
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errors)
            else:
                messages.success(request, f"{delay.site_name}: {delay.days} days "
                                          f"({delay.source_label.lower()}).")
                return redirect("settings_directory_delays", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(failed=form), status=400)

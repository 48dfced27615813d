"""Sync run pages: start a sync, the history, one run with a live progress bar and its JSON."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.generic import TemplateView, View

from accounts.models import SyncRun
from accounts.provider_access import learned_rate
from accounts.tenant_views import TenantViewMixin
from sync.forms import SyncStartForm, resource_label
from sync.selectors import sync_run_get, sync_run_list
from sync.services import RESOURCES, sync_start
from sync.steps import run_alive_since, run_lost_parts

PAGE_SIZE = 25
ERRORS_SHOWN = 10
POLL_INTERVAL_MS = 1500

BADGES = {
    SyncRun.Status.QUEUED: "info",
    SyncRun.Status.RUNNING: "info",
    SyncRun.Status.SUCCEEDED: "ok",
    SyncRun.Status.PARTIAL: "warn",
    SyncRun.Status.FAILED: "bad",
}
COUNT_LABELS = {
    "businesses": "Businesses",
    "locations": "Locations",
    "status_reports": "Listing status reports",
    "listing_sites": "Listing sites",
    "media": "Media items",
    "questions": "Questions",
    "answers": "Answers",
    "competitor_metrics": "Competitor metrics",
    "survey_responses": "Survey responses",
}


def format_duration(duration: datetime.timedelta | None) -> str:
    if duration is None:
        return "–"
    seconds = max(0, int(duration.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


def is_stale(run: SyncRun) -> bool:
    """An unfinished run that has not moved for a long time: no count, and no sign of life of
    any of its steps (no worker at all)."""
    limit = timezone.now() - datetime.timedelta(seconds=settings.SYNC_STALE_AFTER_SECONDS)
    if run.is_finished or run.updated_at >= limit:
        return False
    return not SyncRun.objects.filter(pk=run.pk).filter(run_alive_since(limit)).exists()


def run_note(run: SyncRun, lost_parts: int = 0) -> str:
    if is_stale(run):
        return ("This run has not moved for a long time: is a Celery worker running? "
                "You can start a new sync.")
    if run.status == SyncRun.Status.QUEUED:
        return "Waiting for a worker to pick the run up…"
    if lost_parts:
        within = settings.SYNC_STEP_STALE_SECONDS + 2 * settings.SYNC_SWEEP_SECONDS
        return (f"Waiting for a lost worker's part: a worker stopped in the middle of "
                f"{lost_parts} part{'s' if lost_parts != 1 else ''} of this sync, which "
                f"another worker takes up within {within} s (of what was fetched before, "
                "only that part is fetched again).")
    return ""


def progress_payload(run: SyncRun) -> dict:
    """What the progress bar needs; also the JSON endpoint's answer."""
    lost_parts = run_lost_parts(run) if run.status == SyncRun.Status.RUNNING else 0
    return {
        "id": run.pk,
        "status": run.status,
        "status_label": run.get_status_display(),
        "badge": BADGES.get(run.status, "info"),
        "finished": run.is_finished,
        "stale": is_stale(run),
        "note": run_note(run, lost_parts),
        "lost_parts": lost_parts,
        "percent": run.percent,
        "total": run.total,
        "done": run.done,
        "failed": run.failed,
        "requests_made": run.requests_made,
        "rate_limited": run.rate_limited,
        "duration": format_duration(run.duration),
        "errors": list(run.errors[:ERRORS_SHOWN]),
        "error_count": len(run.errors),
        "counts": ordered_counts(run.counts or {}),
    }


def ordered_counts(counts: dict) -> list[dict]:
    """In a fixed order (JSON columns on PostgreSQL do not keep the keys' order)."""
    known = [name for name in COUNT_LABELS if name in counts]
    others = sorted(name for name in counts if name not in COUNT_LABELS)
    return [{"name": name, "label": COUNT_LABELS.get(name, name.replace("_", " ").capitalize()),
             "value": counts[name]} for name in [*known, *others]]


def decorate(run: SyncRun) -> SyncRun:
    """Presentation attributes for the templates."""
    run.badge = BADGES.get(run.status, "info")
    run.duration_text = format_duration(run.duration)
    run.resource_labels = [resource_label(r) for r in run.resources]
    run.is_everything = set(run.resources) >= set(RESOURCES)
    return run


class SyncRunListView(TenantViewMixin, TemplateView):
    """History of the tenant's runs; managers also get the form that starts one."""

    template_name = "accounts/sync_run_list.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        runs = sync_run_list(tenant=self.tenant, membership=self.membership)
        page_obj = Paginator(runs, PAGE_SIZE).get_page(self.request.GET.get("page"))
        for run in page_obj.object_list:
            decorate(run)
        context.update(
            page_obj=page_obj,
            runs=page_obj.object_list,
            can_start=self.may_change,
            form=kwargs.get("form") or SyncStartForm(membership=self.membership),
            scope=self.membership.limited_to,
        )
        return context

    def post(self, request, *args, **kwargs):
        form = SyncStartForm(request.POST, membership=self.membership)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form), status=400)
        # A member limited to a subtree syncs only that subtree.
        run, created = sync_start(tenant=self.tenant, actor=request.user,
                                  resources=form.cleaned_data["resources"],
                                  scope=self.membership.limited_to)
        url = reverse("sync_run_detail", args=[self.tenant.slug, run.pk])
        if not created and not sync_run_list(tenant=self.tenant, membership=self.membership
                                             ).filter(pk=run.pk).exists():
            messages.warning(request, "A sync of the whole account that covers these resources "
                                      "is running. Start yours again when it has finished.")
            return redirect("sync_run_list", slug=self.tenant.slug)
        if created:
            messages.success(request, f"Sync {run.pk} started.")
        else:
            labels = ", ".join(resource_label(r) for r in run.resources)
            messages.warning(request, format_html(
                'A sync that covers some of these resources is already {}: '
                '<a href="{}">sync {}</a> ({}). Start again when it has finished.',
                run.get_status_display().lower(), url, run.pk, labels))
        return redirect(url)


class SyncRunDetailView(TenantViewMixin, TemplateView):
    template_name = "accounts/sync_run_detail.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        run = decorate(sync_run_get(tenant=self.tenant, pk=kwargs["pk"],
                                    membership=self.membership))
        payload = progress_payload(run)
        context.update(run=run, progress=payload, poll_interval=POLL_INTERVAL_MS,
                       learned_rate=learned_rate(self.tenant))
        return context


class SyncRunProgressView(TenantViewMixin, View):
    """The small JSON document that the detail page polls."""

    def get(self, request, *args, **kwargs):
        run = sync_run_get(tenant=self.tenant, pk=kwargs["pk"], membership=self.membership)
        response = JsonResponse(progress_payload(run))
        response["Cache-Control"] = "no-store"
        return response

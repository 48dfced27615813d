"""The bulk change pages: the member's bulk changes, a new one (its locations, what it sets, its
dry run), and one change with its progress, what may be done with it next and its locations.

A new bulk change takes its locations from its address (`bulk.forms.selection_from`):
- ``new/?numbers=1001,1002`` (or ``numbers`` repeated, as the businesses list's boxes send
  them): those locations;
- ``new/?node=<business number>``: every location under a business of the tree;
- ``new/?filter=all&filter_<name>=<value>...``: the locations the businesses list's filters
  match, each filter named as in the list's own address with ``filter_`` before it
  (``?filter=all&filter_city=Austin``; ``?filter=all`` alone: every location the member sees);
  the list's "Change all N matching locations" sends its current filters this way.
Without any, the page asks for business numbers.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.generic import TemplateView, View

from accounts.selectors import business_name_get
from accounts.tenant_views import TenantViewMixin
from bulk import sending
from bulk.forms import (
    BulkChangeForm,
    ListingPart,
    SelectionError,
    part_choices,
    part_labels,
    selection_fields,
    selection_from,
)
from bulk.models import BulkChange, BulkChangeItem
from bulk.selectors import (
    bulk_change_actions,
    bulk_change_get,
    bulk_change_item_list,
    bulk_change_list,
    bulk_change_progress,
)
from bulk.services import bulk_change_create, bulk_change_locations
from listings.editor.editor import listing_labels
from listings.editor.formats import timezone_names
from listings.editor.forms import PAYMENT_TYPES

PAGE_SIZE = 25
ITEMS_PAGE_SIZE = 25
POLL_INTERVAL_MS = 1500
NAMES_SHOWN = 5

State = BulkChange.State
Item = BulkChangeItem.State
Rollback = BulkChangeItem.Rollback

STATE_BADGES = {State.DRAFT: "", State.DRY_RUN_DONE: "info", State.APPLYING: "info",
                State.PAUSED: "warn", State.CANCELLED: "", State.DONE: "ok",
                State.ROLLING_BACK: "info", State.ROLLED_BACK: "ok"}
ITEM_BADGES = {Item.WILL_CHANGE: "info", Item.UNCHANGED: "", Item.INVALID: "bad",
               Item.QUEUED: "info", Item.ACCEPTED: "ok", Item.REJECTED: "bad",
               Item.FAILED: "bad", Item.IN_DOUBT: "warn", Item.SKIPPED: "warn",
               Item.ROLLED_BACK: "ok"}
ROLLBACK_BADGES = {Rollback.QUEUED: "info", Rollback.ACCEPTED: "ok", Rollback.REJECTED: "bad",
                   Rollback.FAILED: "bad", Rollback.IN_DOUBT: "warn", Rollback.IMPOSSIBLE: "warn"}

# Each action: the service, and what the page says once it is done.
ACTIONS = {
    "apply": (sending.bulk_change_apply, "Bulk change {pk} is being sent: its first wave is on "
                                         "its way to the provider."),
    "pause": (sending.bulk_change_pause, "Bulk change {pk} is paused: no new wave starts; the "
                                         "changes already sent are still answered."),
    "resume": (sending.bulk_change_resume, "Bulk change {pk} goes on with its next wave."),
    "cancel": (sending.bulk_change_cancel, "Bulk change {pk} is cancelled: nothing more is "
                                           "sent."),
    "rollback": (sending.bulk_change_rollback, "Bulk change {pk} is being rolled back: each "
                                               "location it changed gets its previous version "
                                               "again."),
}


def _fields_set(change: BulkChange) -> list[str]:
    value = change.set if isinstance(change.set, dict) else {}
    return [f"{section}.{name}" for section, fields in value.items()
            if isinstance(fields, dict) for name in fields]


def selection_text(selection: dict) -> str:
    """How a change chose its locations, in words."""
    if not isinstance(selection, dict) or len(selection) != 1:
        return ""
    (kind, value), = selection.items()
    if kind == "node":
        return f"the locations under {value}"
    if kind == "numbers" and isinstance(value, list):
        return f"{len(value)} location{'s' if len(value) != 1 else ''} chosen by number"
    if kind == "filter" and isinstance(value, dict):
        if not value:
            return "every location"
        return "the locations matching the businesses list's filters: " + ", ".join(
            f"{name} = {item}" for name, item in value.items())
    return ""


def decorate(change: BulkChange) -> BulkChange:
    change.badge = STATE_BADGES.get(change.state, "")
    change.part_labels = part_labels(_fields_set(change))
    change.selection_text = selection_text(change.selection)
    counts = change.counts if isinstance(change.counts, dict) else {}
    change.count = {name: counts.get(name, 0)
                    for name in ("selected", "will_change", "unchanged", "invalid")}
    return change


def field_label(path: str, labels: dict[str, str]) -> str:
    """The label of the field a dotted path names, or of the nearest field enclosing it
    (``additionalInfo.hoursOfOperations[0].workingHours[0]`` -> "Opening hours")."""
    candidate = path
    while candidate:
        if candidate in labels:
            return labels[candidate]
        trimmed = re.sub(r"(\[\d+\]|\.[^.\[\]]+)$", "", candidate)
        candidate = "" if trimmed == candidate else trimmed
    return ""


def progress_payload(change: BulkChange, progress: dict) -> dict:
    """What the progress bars need; also the JSON the detail page polls."""
    rollback = progress["rollback"]
    rollback_total = sum(rollback.values())
    rollback_queued = rollback.get(Rollback.QUEUED, 0)
    waves_total = progress["waves_total"]
    moving = change.state in (State.APPLYING, State.ROLLING_BACK) or bool(
        progress["queued"] or rollback_queued)
    return {
        "state": change.state,
        "state_label": change.get_state_display(),
        "badge": STATE_BADGES.get(change.state, ""),
        "moving": moving,
        "current_wave": progress["current_wave"],
        "waves_total": waves_total,
        "waves_percent": round(100 * min(progress["current_wave"], waves_total) / waves_total)
        if waves_total else 0,
        "locations": progress["locations"],
        "percent": progress["percent"],
        "waiting": progress.get("waiting", 0),
        "queued": progress["queued"],
        "accepted": progress["accepted"],
        "rejected": progress["rejected"],
        "failed": progress["failed"],
        "in_doubt": progress.get("in_doubt", 0),
        "skipped": progress["skipped"],
        "rollback_total": rollback_total,
        "rollback_queued": rollback_queued,
        "rollback_accepted": rollback.get(Rollback.ACCEPTED, 0),
        "rollback_refused": rollback.get(Rollback.REJECTED, 0) + rollback.get(Rollback.FAILED, 0),
        "rollback_impossible": rollback.get(Rollback.IMPOSSIBLE, 0),
        "rollback_percent": round(100 * (rollback_total - rollback_queued) / rollback_total)
        if rollback_total else 0,
        "paused_reason": progress["paused_reason"],
        "note": progress_note(change, progress),
    }


def progress_note(change: BulkChange, progress: dict) -> str:
    """What a change being sent is waiting for, in words."""
    wave = progress["current_wave"]
    if change.state == State.ROLLING_BACK:
        return "The earlier versions are on their way to the provider."
    if change.state != State.APPLYING or not wave:
        return ""
    queued = progress["queued"]
    if queued:
        return (f"Wave {wave}: {queued} change{'s are' if queued != 1 else ' is'} on the way to "
                "the provider; the next wave starts once they are answered.")
    if change.wait_for_statuses and change.wave_accepted_at:
        return (f"Wave {wave} was accepted; its locations' directory statuses are being read "
                "again before the next wave starts.")
    return ""


class BulkChangeMixin(TenantViewMixin):
    def get_change(self) -> BulkChange:
        if not hasattr(self, "_change"):
            self._change = bulk_change_get(tenant=self.tenant, membership=self.membership,
                                           pk=self.kwargs["pk"])
        return self._change

    def detail_url(self) -> str:
        return reverse("bulk_change_detail", args=[self.tenant.slug, self.kwargs["pk"]])


# -- the list ----------------------------------------------------------------------------------

class BulkChangeListView(TenantViewMixin, TemplateView):
    """The bulk changes the member may see, newest first."""

    template_name = "bulk/bulk_change_list.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        changes = bulk_change_list(tenant=self.tenant, membership=self.membership)
        page_obj = Paginator(changes, PAGE_SIZE).get_page(self.request.GET.get("page"))
        context.update(page_obj=page_obj,
                       changes=[decorate(change) for change in page_obj.object_list])
        return context


# -- a new one ---------------------------------------------------------------------------------

class BulkChangeNewView(TenantViewMixin, TemplateView):
    """GET: the chosen locations and the parts of the listing to choose. POST `action=parts`:
    the editor's fields of the parts ticked, with everything typed kept; `action=dry_run`: check
    it all, store the change and its dry run, and go to it."""

    template_name = "bulk/bulk_change_new.html"

    def get(self, request, *args, **kwargs):
        form = BulkChangeForm(initial={"parts": request.GET.getlist("parts")})
        part = ListingPart(paths=form.chosen_parts())
        return self.render_to_response(self.get_context_data(
            bulk_form=form, part=part, **self.selection_context(request.GET)))

    def post(self, request, *args, **kwargs):
        form = BulkChangeForm(request.POST)
        part = ListingPart(request.POST, paths=form.chosen_parts())
        chosen = self.selection_context(request.POST)
        if request.POST.get("action") == "parts":
            part.hold()
            form.full_clean()
            form._errors.clear()  # nothing is wrong yet: the parts were being chosen
            return self.render_to_response(self.get_context_data(bulk_form=form, part=part,
                                                                 **chosen))
        valid = form.is_valid()
        valid = part.is_valid() and valid
        errors = chosen["selection_errors"]
        if chosen["selection"] is None and not errors:
            errors.append("Choose the locations: tick them in the businesses list, or give "
                          "their business numbers here.")
        if valid and not errors:
            data = form.cleaned_data
            try:
                change = bulk_change_create(
                    tenant=self.tenant, actor=request.user, membership=self.membership,
                    businesses=chosen["selection"], set=part.value(), lists=data["lists"],
                    waves=data["waves"], wait_for_statuses=data["wait_for_statuses"],
                    action_required_threshold=data["action_required_threshold"],
                    dry_run=True)
            except ValidationError as exc:
                self.place_errors(exc, form, errors)
            else:
                messages.success(request, f"Dry run of bulk change {change.pk} done: nothing "
                                          "was sent. Check what it would do below.")
                return redirect("bulk_change_detail", slug=self.tenant.slug, pk=change.pk)
        messages.error(request, "Some fields need attention: see the messages next to them.")
        return self.render_to_response(self.get_context_data(bulk_form=form, part=part,
                                                             **chosen), status=400)

    @staticmethod
    def place_errors(exc: ValidationError, form: BulkChangeForm, errors: list[str]) -> None:
        found = exc.message_dict if hasattr(exc, "error_dict") else {"": exc.messages}
        for key, texts in found.items():
            if key.startswith("businesses"):
                errors.extend(texts)
            elif key.startswith("set"):
                form.add_error("parts", texts)
            elif key.startswith("waves"):
                form.add_error("waves", texts)
            elif key in form.fields:
                form.add_error(key, texts)
            else:
                form.add_error(None, texts)

    def selection_context(self, params) -> dict:
        """The locations chosen (`params`: the query string or the form), checked: their count
        and first names, or what is wrong with the choice."""
        context = {"selection": None, "selection_errors": [], "selection_fields": [],
                   "location_count": 0, "location_names": [], "selection_text": "",
                   "typed_numbers": ""}
        try:
            selection = selection_from(params)
        except SelectionError as exc:
            context["selection_errors"].append(str(exc))
            context["typed_numbers"] = " ".join(params.getlist("numbers"))[:2000]
            return context
        if selection is None:
            return context
        context.update(selection=selection, selection_fields=selection_fields(selection),
                       selection_text=selection_text(selection))
        try:
            locations = bulk_change_locations(tenant=self.tenant, membership=self.membership,
                                              businesses=selection)
        except ValidationError as exc:
            # The page asks for the locations again, numbers typed kept.
            context.update(selection=None, selection_fields=[],
                           selection_errors=[*context["selection_errors"], *exc.messages])
            if "numbers" in selection:
                context["typed_numbers"] = ", ".join(map(str, selection["numbers"]))[:2000]
            return context
        context.update(location_count=len(locations),
                       location_names=[location.name for location in locations[:NAMES_SHOWN]],
                       more_count=max(0, len(locations) - NAMES_SHOWN))
        if "node" in selection:
            context["node_name"] = business_name_get(
                tenant=self.tenant, membership=self.membership, remote_id=selection["node"])
        return context

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        form: BulkChangeForm = context["bulk_form"]
        chosen = set(form.chosen_parts())
        context.update(
            part_groups=[(group, [(path, label, path in chosen) for path, label in options],
                          any(path in chosen for path, _ in options))
                         for group, options in part_choices()],
            lists_matter=form.lists_matter, timezones=timezone_names(),
            payment_types=PAYMENT_TYPES)
        return context


# -- one change --------------------------------------------------------------------------------

class BulkChangeDetailView(BulkChangeMixin, TemplateView):
    """The change: its dry run's counts, its progress (kept up to date by bulk.js), what may be
    done next, and its locations, filtered by state."""

    template_name = "bulk/bulk_change_detail.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        change = decorate(self.get_change())
        progress = bulk_change_progress(change=change)
        state = self.request.GET.get("state", "")
        state = state if state in Item.values else ""
        items = (bulk_change_item_list(tenant=self.tenant, change=change)
                 .select_related("business", "listing_version", "rollback_version")
                 .defer("payload", "own_set", "business__raw", "listing_version__document",
                        "listing_version__payload", "rollback_version__document",
                        "rollback_version__payload"))
        if state:
            items = items.filter(state=state)
        page_obj = Paginator(items, ITEMS_PAGE_SIZE).get_page(self.request.GET.get("page"))
        labels = listing_labels()
        for item in page_obj.object_list:
            item.badge = ITEM_BADGES.get(item.state, "")
            item.rollback_badge = ROLLBACK_BADGES.get(item.rollback_state, "")
            item.error_rows = [(field_label(str(error.get("field", "")), labels),
                                error.get("message", "")) for error in item.errors
                               if isinstance(error, dict)]
        context.update(
            change=change, progress=progress_payload(change, progress),
            actions=bulk_change_actions(change, progress) if self.may_change else [],
            page_obj=page_obj, items=page_obj.object_list, state=state,
            state_choices=Item.choices, poll_interval=POLL_INTERVAL_MS)
        return context


class BulkChangeProgressView(BulkChangeMixin, View):
    """The small JSON document the detail page polls."""

    def get(self, request, *args, **kwargs):
        change = self.get_change()
        response = JsonResponse(progress_payload(change, bulk_change_progress(change=change)))
        response["Cache-Control"] = "no-store"
        return response


class BulkChangeActionView(BulkChangeMixin, View):
    """Apply, pause, resume, cancel or roll back (`action`), then back to the change."""

    http_method_names = ["post"]
    action = ""

    def post(self, request, *args, **kwargs):
        change = self.get_change()
        service, done = ACTIONS[self.action]
        extra = {"membership": self.membership} if self.action == "apply" else {}
        try:
            service(tenant=self.tenant, actor=request.user, change=change, **extra)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, done.format(pk=change.pk))
        return redirect(self.detail_url())


class BulkChangeConfirmView(BulkChangeMixin, TemplateView):
    """Asks before a cancel or a rollback (`action`); its button posts to the action."""

    http_method_names = ["get", "head"]
    template_name = "bulk/bulk_change_confirm.html"
    action = ""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        change = decorate(self.get_change())
        progress = bulk_change_progress(change=change)
        context.update(change=change, action=self.action, progress=progress,
                       allowed=self.action in bulk_change_actions(change, progress))
        return context

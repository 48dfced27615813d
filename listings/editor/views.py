"""The listing editor tab of a business: edit, review the changes, send, follow the outcome."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.generic import TemplateView, View

from accounts.tenant_views import BusinessTabMixin, locations_only
from listings.editor import selectors
from listings.editor.categories import categories_fetch
from listings.editor.editor import ListingEditor
from listings.editor.formats import timezone_names
from listings.editor.forms import PAYMENT_TYPES
from listings.editor.rules import first_version_notes
from listings.editor.schema import CATEGORY_SOURCES, COUNTRIES
from listings.editor.services import (
    ListingBusy,
    ListingChangedSinceReview,
    listing_changes_prepare,
    listing_submit,
    listing_version_retry,
)
from listings.models import ListingVersion
from outbox.models import OutboxEntry

HISTORY_LENGTH = 10


class BusinessMixin(BusinessTabMixin):
    business_types = locations_only("Listings")

    def get_version(self) -> ListingVersion:
        try:
            return selectors.listing_version_get(tenant=self.tenant, business=self.get_business(),
                                                 number=self.kwargs["number"])
        except ListingVersion.DoesNotExist:
            raise Http404("No such version.") from None

    def editor_url(self) -> str:
        return reverse("listing_edit", args=[self.tenant.slug, self.get_business().remote_id])


class ListingEditView(BusinessMixin, TemplateView):
    """GET: the editor, pre-filled from the last submitted version (or `?version=N`), with the
    provider's rejection shown on its field. POST `action=review`: check and show the changes
    against the last accepted version; `action=send`: store and queue them;
    `action=categories`: fetch the category lists of the country the form names, and show the
    form again as it was submitted (the button is part of the form, so nothing typed is lost)."""

    template_name = "listings/editor_page.html"

    def load(self) -> None:
        business = self.get_business()
        self.versions = list(selectors.listing_version_history(
            tenant=self.tenant, business=business)[:HISTORY_LENGTH])
        self.latest = self.versions[0] if self.versions else None
        self.accepted = selectors.listing_version_last_accepted(tenant=self.tenant,
                                                                business=business)
        self.shown = self.latest
        number = self.request.GET.get("version")
        if number and number.isascii() and number.isdigit():
            self.shown = selectors.listing_version_list(
                tenant=self.tenant, business=business).filter(number=int(number)).first()
            if self.shown is None:
                raise Http404("No such version.")
        self.document = (self.shown.document if self.shown
                         else selectors.listing_document_from_business(business))

    def make_editor(self, data=None) -> ListingEditor:
        return ListingEditor(data, document=self.document,
                             accepted=self.accepted.document if self.accepted else None,
                             read_only=not self.editable)

    @property
    def editable(self) -> bool:
        return self.may_change and self.get_business().is_location

    def get(self, request, *args, **kwargs):
        self.load()
        editor = self.make_editor()
        shown = self.shown
        if shown is not None and shown.state == OutboxEntry.State.REJECTED:
            entry = shown.outbox_entry
            editor.show_rejection(code=entry.provider_code, message=entry.provider_message,
                                  payload=shown.payload, document=shown.document)
        return self.render_to_response(self.get_context_data(editor=editor))

    def post(self, request, *args, **kwargs):
        self.load()
        if not self.get_business().is_location:
            messages.error(request, "Only a location has a listing.")
            return redirect(self.editor_url())
        editor = self.make_editor(request.POST)
        context = {"editor": editor}
        if request.POST.get("action") == "categories":
            self.fetch_categories(editor.country_code)
            editor.hold()
            return self.render_to_response(self.get_context_data(open_section="categories",
                                                                 **context))
        if not editor.is_valid():
            messages.error(request, "Some fields need attention: see the messages next to them.")
            return self.render_to_response(self.get_context_data(**context))
        send = request.POST.get("action") == "send"
        try:
            prepared = listing_changes_prepare(
                tenant=self.tenant, business=self.get_business(), document=editor.document,
                base_number=self.reviewed_base() if send else None)
        except ListingChangedSinceReview as exc:
            messages.warning(request, exc.message)
            prepared, send = exc.prepared, False
        except ValidationError as exc:  # nothing changed
            messages.info(request, " ".join(exc.messages))
            return self.render_to_response(self.get_context_data(**context))
        if send:
            try:
                version = listing_submit(
                    tenant=self.tenant, actor=request.user, business=self.get_business(),
                    payload=prepared.payload, summary=prepared.summary)
            except ListingBusy as exc:
                editor.messages.append(str(exc) + " Wait for the provider's answer.")
            else:
                messages.success(request, f"Version {version.number} is queued for the "
                                          "provider; its state is shown below.")
                return redirect(self.editor_url())
        context.update(changes=prepared.changes,
                       payload_json=json.dumps(prepared.payload, indent=2),
                       first_version_notes=(first_version_notes(editor.document)
                                            if self.accepted is None else []))
        return self.render_to_response(self.get_context_data(**context))

    def fetch_categories(self, country: str) -> None:
        if country not in COUNTRIES:
            messages.error(self.request, "Choose the country in the address first: the provider "
                                         "has category lists for "
                                         + ", ".join(COUNTRIES.values()) + ".")
            return
        result = categories_fetch(tenant=self.tenant, business=self.get_business(),
                                  country_code=country)
        if result.counts:
            total = sum(result.counts.values())
            messages.success(self.request, f"Fetched {total} categories for {COUNTRIES[country]}"
                                           ". Nothing was sent: your changes are still in the "
                                           "form.")
        for source, error in result.errors.items():
            name = CATEGORY_SOURCES.get(source, "the provider")
            messages.error(self.request, f"Could not fetch the categories of {name}: {error}")

    def reviewed_base(self) -> int:
        """The accepted version the changes were reviewed against (the page's `base`); a form
        without a readable one was reviewed against none, so it is reviewed again."""
        raw = self.request.POST.get("base", "")
        return int(raw) if raw.isascii() and raw.isdigit() else -1

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        business = self.get_business()
        editor = context["editor"]
        country = editor.country_code or (business.country_code or "").upper()
        # The country may be what was just typed: only a country with category lists is looked up.
        categories = (selectors.category_options(tenant=self.tenant, country_code=country)
                      if country in COUNTRIES else {})
        context.update(
            business=business, versions=self.versions, latest=self.latest,
            accepted=self.accepted, shown=self.shown,
            open_version=self.latest if self.latest and self.latest.is_open else None,
            can_edit=self.editable, base=self.accepted.number if self.accepted else 0,
            category_country=country, category_country_name=COUNTRIES.get(country, country),
            category_lists=[(source, label, categories.get(source, []))
                            for source, label in CATEGORY_SOURCES.items()],
            categories_missing=bool(country in COUNTRIES and not categories),
            countries=COUNTRIES, payment_types=PAYMENT_TYPES, timezones=timezone_names(),
        )
        context.setdefault("changes", None)
        context.setdefault("open_section", "")
        return context


class ListingVersionStateView(BusinessMixin, View):
    """The state of one version as JSON, for the page to follow a pending change."""

    def get(self, request, *args, **kwargs):
        version = self.get_version()
        entry = version.outbox_entry
        return JsonResponse({"number": version.number, "state": version.state,
                             "code": entry.provider_code if entry else None,
                             "message": entry.provider_message if entry else ""})


class ListingVersionRetryView(BusinessMixin, View):
    """A manager sends a failed version again."""

    def post(self, request, *args, **kwargs):
        version = self.get_version()
        try:
            listing_version_retry(tenant=self.tenant, actor=request.user, version=version)
        except ValueError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Version {version.number} is queued again.")
        return redirect(self.editor_url())

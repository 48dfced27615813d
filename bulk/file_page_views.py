"""Pages of listings files: export from the businesses list, and import a file: upload, name
the columns the file names in its own words, the preview row by row, then the bulk change."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.generic import TemplateView, View

from accounts import access
from accounts.tenant_views import TenantViewMixin
from bulk.files import listing_export, max_bytes, read_table
from bulk.forms_files import (
    ListingImportApplyForm,
    ListingImportColumnsForm,
    ListingImportUploadForm,
)
from bulk.imports import (
    blank_columns,
    listing_import_apply,
    listing_import_create,
    listing_import_get,
    listing_import_list,
    listing_import_row_list,
    listing_import_unknown_columns,
)
from bulk.models import ListingImportRow
from portal.tenancy import tenant_scope

PAGE_SIZE = 50
# How long an uploaded file waits for its columns to be named.
PENDING_SECONDS = 3600
PENDING_SESSION_KEY = "listing_import_pending"
STATE_BADGES = {
    ListingImportRow.State.WILL_CHANGE: "info",
    ListingImportRow.State.UNCHANGED: "",
    ListingImportRow.State.INVALID: "bad",
    ListingImportRow.State.UNKNOWN_BUSINESS: "warn",
}


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [message for messages_ in error.message_dict.values() for message in messages_]
    return error.messages


class ListingExportView(TenantViewMixin, View):
    """The listings of the businesses list's current filters, as CSV (streamed) or XLSX."""

    def get(self, request, *args, **kwargs):
        params = {name: value for name, value in request.GET.items()}
        try:
            exported = listing_export(tenant=self.tenant, actor=request.user,
                                      membership=self.membership, params=params,
                                      format=params.get("format") or "csv")
        except ValidationError as error:
            for message in dict.fromkeys(_messages(error)):
                messages.error(request, f"Nothing exported: {message}")
            query = request.GET.copy()
            query.pop("format", None)
            url = reverse("business_list", args=[self.tenant.slug])
            return redirect(f"{url}?{query.urlencode()}" if query else url)
        if exported.format == "csv":
            tenant, lines = self.tenant, exported.lines()

            def stream():
                # The response streams after the view returns: stay inside the tenant's scope.
                with tenant_scope(tenant):
                    yield from lines

            response = StreamingHttpResponse(stream(), content_type=exported.content_type)
        else:
            response = HttpResponse(exported.content(), content_type=exported.content_type)
        response["Content-Disposition"] = f'attachment; filename="{exported.name}"'
        return response


def _pending_key(view, token: str) -> str:
    return f"listing-import-pending:{view.tenant.pk}:{view.request.user.pk}:{token}"


class ListingImportListView(TenantViewMixin, TemplateView):
    """The imports made, newest first; managers upload a file here."""

    template_name = "bulk/import_list.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        imports = listing_import_list(tenant=self.tenant, membership=self.membership)
        page = Paginator(imports, PAGE_SIZE).get_page(self.request.GET.get("page"))
        for item in page.object_list:
            item.count = {name: item.counts.get(name, 0) for name in (
                "rows", "will_change", "unchanged", "invalid", "unknown_business")}
            item.count["broken"] = item.count["invalid"] + item.count["unknown_business"]
        context.update(page_obj=page, imports=page.object_list,
                       form=kwargs.get("form") or ListingImportUploadForm(),
                       max_size=f"{max_bytes() // (1024 * 1024)} MB")
        return context

    def post(self, request, *args, **kwargs):
        form = ListingImportUploadForm(request.POST, request.FILES)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form), status=400)
        upload = form.cleaned_data["file"]
        data = upload.read(max_bytes() + 1)
        try:
            listing_import = listing_import_create(
                tenant=self.tenant, actor=request.user, membership=self.membership,
                data=data, file_name=upload.name or "")
        except ValidationError as error:
            if any(name.startswith("columns.") for name in error.message_dict):
                # The file names some columns in its own words: keep it while they are named.
                token = secrets.token_urlsafe(16)
                cache.set(_pending_key(self, token), data, PENDING_SECONDS)
                request.session[PENDING_SESSION_KEY] = {"token": token,
                                                        "name": (upload.name or "")[-255:]}
                return redirect("listing_import_columns", slug=self.tenant.slug)
            for name, messages_ in error.message_dict.items():
                for message in messages_:
                    form.add_error("file" if name == "file" else None, message)
            return self.render_to_response(self.get_context_data(form=form), status=400)
        return redirect("listing_import_detail", slug=self.tenant.slug, pk=listing_import.pk)


class ListingImportColumnsView(TenantViewMixin, TemplateView):
    """The columns a file names in its own words: which field each one fills."""

    template_name = "bulk/import_columns.html"

    def pending(self) -> tuple[dict, bytes] | None:
        found = self.request.session.get(PENDING_SESSION_KEY)
        if not isinstance(found, dict) or "token" not in found:
            return None
        data = cache.get(_pending_key(self, found["token"]))
        return (found, data) if data is not None else None

    def refusal(self, request):
        if self.pending() is None:
            messages.warning(request, "Choose the file to import again: the one you chose is "
                                      "no longer kept.")
            return redirect("listing_import_list", slug=self.tenant.slug)
        return None

    def form_for(self, data: bytes, post=None):
        table = read_table(data)
        unknown = listing_import_unknown_columns(
            header=table.header, blank=blank_columns(table.header, table.rows))
        return ListingImportColumnsForm(post, columns=unknown), table

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        found, data = self.pending()
        fresh, table = self.form_for(data)
        form = kwargs.get("form") or fresh
        context.update(form=form, file_name=found.get("name", ""),
                       known=[name for name in (table.header if table else [])
                              if name and name not in form.column_names.values()])
        return context

    def post(self, request, *args, **kwargs):
        found, data = self.pending()
        form, _ = self.form_for(data, request.POST)
        if form.is_valid():
            try:
                listing_import = listing_import_create(
                    tenant=self.tenant, actor=request.user, membership=self.membership,
                    data=data, file_name=found.get("name", ""), mapping=form.mapping())
            except ValidationError as error:
                form.add_column_errors(error.message_dict)
            else:
                cache.delete(_pending_key(self, found["token"]))
                request.session.pop(PENDING_SESSION_KEY, None)
                return redirect("listing_import_detail", slug=self.tenant.slug,
                                pk=listing_import.pk)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class ListingImportDetailView(TenantViewMixin, TemplateView):
    """The preview of an import, row by row; managers make it a bulk change from here."""

    template_name = "bulk/import_detail.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        listing_import = listing_import_get(tenant=self.tenant, membership=self.membership,
                                            pk=self.kwargs["pk"])
        state = self.request.GET.get("state") or ""
        if state not in ListingImportRow.State.values:
            state = ""
        rows = listing_import_row_list(tenant=self.tenant, listing_import=listing_import,
                                       state=state or None)
        page = Paginator(rows, PAGE_SIZE).get_page(self.request.GET.get("page"))
        for row in page.object_list:
            row.badge = STATE_BADGES.get(row.state, "")
        counts = {name: listing_import.counts.get(name, 0) for name in (
            "rows", "will_change", "unchanged", "invalid", "unknown_business")}
        context.update(
            listing_import=listing_import, page_obj=page, rows=page.object_list, state=state,
            counts=counts, states=[(value, label, counts.get(value, 0))
                                   for value, label in ListingImportRow.State.choices],
            broken=counts.get("invalid", 0) + counts.get("unknown_business", 0),
            may_apply=access.allows(self.membership, "listing_import_apply", write=True),
            form=kwargs.get("form") or ListingImportApplyForm())
        return context


class ListingImportApplyView(TenantViewMixin, View):
    """Makes an import a bulk change, then shows that bulk change."""

    def post(self, request, *args, **kwargs):
        listing_import = listing_import_get(tenant=self.tenant, membership=self.membership,
                                            pk=self.kwargs["pk"])
        back = redirect("listing_import_detail", slug=self.tenant.slug, pk=listing_import.pk)
        form = ListingImportApplyForm(request.POST)
        if not form.is_valid():
            for field, errors in form.errors.items():
                label = form.fields[field].label if field in form.fields else ""
                for error in errors:
                    messages.error(request, f"{label}: {error}" if label else error)
            return back
        try:
            change = listing_import_apply(tenant=self.tenant, actor=request.user,
                                          membership=self.membership,
                                          listing_import=listing_import, **form.cleaned_data)
        except ValidationError as error:
            for message in _messages(error):
                messages.error(request, message)
            return back
        messages.success(request, f"Bulk change {change.pk} made from {listing_import.file_name}"
                                  ": check its dry run, then send it.")
        return redirect("bulk_change_detail", slug=self.tenant.slug, pk=change.pk)

import csv
import math
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.generic import TemplateView, View

from accounts import selectors, services
from accounts.dashboard import dashboard_summary, health_segments, status_segments
from accounts.forms import HierarchyFormSet
from accounts.links import business_detail_prefix
from accounts.models import Business
from accounts.selectors import membership_list_for_user
from accounts.tenant_views import TenantViewMixin
from outbox.models import OutboxEntry
from portal.charts import donut, stacked_bar
from portal.pagination import CountInPagePaginator
from portal.tenancy import tenant_scope

PAGE_SIZE = 50


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
    """The dashboard: totals, listing health, reviews, recent syncs, locations needing action."""

    template_name = "accounts/tenant_home.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        dashboard = dashboard_summary(tenant=self.tenant, membership=self.membership)
        context["dashboard"] = dashboard
        context["business_count"] = dashboard.business_count
        context["location_count"] = dashboard.location_count
        return context


# -- the businesses list -----------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    label: str
    sort: str = ""  # the `sort` parameter of the column, when it can be sorted on
    numeric: bool = False


LIST_COLUMNS = [
    Column("Name", "name"), Column("Business number", "id", numeric=True),
    Column("Type", "type"), Column("Status", "status"), Column("City", "city"),
    Column("Country", "country"), Column("Listing status", "listing_status"),
    Column("Synced", "synced", numeric=True),
    Column("Needs update", "need_updates", numeric=True),
]


def sort_headers(current: str) -> list[dict]:
    """Each column with the link parameter that sorts on it (a second click reverses) and
    its current direction for aria-sort."""
    headers = []
    for column in LIST_COLUMNS:
        header = {"column": column, "next": "", "aria_sort": ""}
        if column.sort:
            if current == column.sort:
                header.update(next=f"-{column.sort}", aria_sort="ascending")
            elif current == f"-{column.sort}":
                header.update(next=column.sort, aria_sort="descending")
            else:
                header["next"] = column.sort
        headers.append(header)
    return headers


class BusinessListView(TenantViewMixin, TemplateView):
    template_name = "accounts/business_list.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        filterset = selectors.business_filterset(tenant=self.tenant, membership=self.membership,
                                                 params=self.request.GET)
        # Pages are cut from the ids alone (a narrow query an index can answer, so a deep page
        # skips index entries rather than joined rows); then the page's rows are fetched. The
        # raw provider payloads are not shown here and may be large.
        queryset = filterset.qs
        if filterset.searching:
            paginator = CountInPagePaginator(queryset, PAGE_SIZE)
        else:
            paginator = Paginator(queryset.values_list("pk", flat=True), PAGE_SIZE)
        page = paginator.get_page(self.request.GET.get("page"))
        businesses = selectors.business_rows_in_order(
            queryset=queryset.defer("raw", "status_report__raw"), ids=page.object_list)
        # The fields that validated (an invalid one is ignored and shows its error).
        cleaned = getattr(filterset.form, "cleaned_data", {})
        current_sort = (cleaned.get("sort") or [""])[0]
        within_name = ""
        if cleaned.get("within") is not None:
            within_name = selectors.business_name_get(
                tenant=self.tenant, membership=self.membership, remote_id=cleaned["within"])
        labels = dict(Business.Type.choices)
        detail_prefix = business_detail_prefix(self.tenant.slug)
        for business in businesses:
            business.type_label = labels.get(business.type, business.type)
            business.detail_url = f"{detail_prefix}{business.remote_id}/"
            if business.synced_percent is not None:
                business.synced_whole = math.floor(business.synced_percent + 0.5)
        context.update(
            filterset=filterset, form=filterset.form, page_obj=page, businesses=businesses,
            headers=sort_headers(current_sort or "name"), within_name=within_name,
        )
        return context


def _csv_safe(value):
    """A cell a spreadsheet will not run as a formula."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    text = str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text
    return text


class _Echo:
    def write(self, value):
        return value


EXPORT_HEADER = [
    "business_number", "name", "alias", "type", "status", "address1", "address2", "city",
    "state", "zip", "country_code", "phone", "parent_number", "listing_status", "total_sites",
    "synced", "submitted", "need_updates", "opted_out", "not_connected", "needs_action",
    "status_refreshed_at", "removed_at",
]


class BusinessExportView(TenantViewMixin, View):
    """The filtered list as CSV, streamed: the same filters and subtree as the list."""

    def get(self, request, *args, **kwargs):
        queryset = selectors.business_list_filtered(tenant=self.tenant,
                                                    membership=self.membership,
                                                    params=request.GET)
        services.audit_record(tenant=self.tenant, actor=request.user,
                              action="business.exported",
                              summary={"filters": {k: v for k, v in request.GET.items()
                                                   if k != "page"}})
        tenant = self.tenant
        writer = csv.writer(_Echo())

        def rows():
            # The response streams after the view returns: stay inside the tenant's scope.
            with tenant_scope(tenant):
                yield writer.writerow(EXPORT_HEADER)
                for row in selectors.business_export_rows(queryset=queryset):
                    yield writer.writerow([_csv_safe(value) for value in row])

        stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
        response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="businesses-{tenant.slug}-{stamp}.csv"')
        return response


class BusinessTreeView(TenantViewMixin, TemplateView):
    template_name = "accounts/business_tree.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["root"] = selectors.business_tree(tenant=self.tenant,
                                                  membership=self.membership)
        return context


# -- one business ------------------------------------------------------------------------------


SITE_STATUS_BADGES = {"Synced": "ok", "In Progress": "info", "Action Required": "bad",
                      "Connect": "warn"}
LOCATION_STATUS_BADGES = {"Published": "ok", "Scan State": "info", "Disabled": "bad"}
REFRESH_WAIT_SECONDS = 120


class BusinessMixin(TenantViewMixin):
    """Resolves `remote_id` inside the tenant and the member's subtree, else 404."""

    def get_business(self):
        if not hasattr(self, "_business"):
            self._business = selectors.business_detail_get(
                tenant=self.tenant, membership=self.membership,
                remote_id=self.kwargs["remote_id"])
        return self._business

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["business"] = self.get_business()
        return context


class BusinessDetailView(BusinessMixin, TemplateView):
    """Tab "Listing status": the status report and its sites, or what is under a container."""

    template_name = "accounts/business_detail.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        if business.is_location:
            report = getattr(business, "status_report", None)
            if report is not None and report.removed_at is not None:
                report = None
            sites = list(selectors.listing_site_list(tenant=self.tenant, business=business))
            for site in sites:
                site.badge = SITE_STATUS_BADGES.get(site.status, "")
            last_refresh = selectors.listing_refresh_latest(tenant=self.tenant,
                                                            business=business)
            waiting = (last_refresh is not None
                       and last_refresh.action == "listing_status.refresh_requested")
            context.update(
                report=report, sites=sites, last_refresh=last_refresh,
                # The page reloads itself while a fresh request waits for its task.
                refresh_pending=waiting and (timezone.now() - last_refresh.created_at
                                             ).total_seconds() < REFRESH_WAIT_SECONDS,
                refresh_stuck=waiting and (timezone.now() - last_refresh.created_at
                                           ).total_seconds() >= REFRESH_WAIT_SECONDS,
                location_badge=LOCATION_STATUS_BADGES.get(
                    getattr(report, "location_status", ""), ""),
            )
            if report is not None:
                health = {"synced": report.synced_count, "submitted": report.submitted_count,
                          "need_updates": report.need_updates_count,
                          "opted_out": report.opted_out_count,
                          "not_connected": report.not_connected_count}
                context["report_chart"] = stacked_bar(health_segments(health),
                                                      title="Listing sites by state")
        else:
            summary = selectors.business_children_summary(
                tenant=self.tenant, membership=self.membership, business=business)
            context["summary"] = summary
            context["status_chart"] = donut(status_segments(summary["locations_by_status"]),
                                            title="Locations by status",
                                            center_text=str(summary["location_count"]))
            context["health_chart"] = stacked_bar(health_segments(summary["health"]),
                                                  title="Listing sites of these locations")
        return context

    def post(self, request, *args, **kwargs):
        business = self.get_business()
        if not business.is_location or business.removed_at is not None:
            messages.error(request, "Only current locations have a listing status to refresh.")
        else:
            services.listing_status_refresh_request(tenant=self.tenant, actor=request.user,
                                                    business=business)
            messages.success(request, "Refresh requested: the provider's status report is being "
                                      "fetched. Reload this page in a few seconds.")
        return redirect("business_detail", slug=self.tenant.slug, remote_id=business.remote_id)


class BusinessHierarchyView(BusinessMixin, TemplateView):
    """Tab "Hierarchy": the location's levels, edited as a whole and sent through the outbox."""

    template_name = "accounts/business_hierarchy.html"

    def get_context_data(self, formset=None, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        levels = list(selectors.hierarchy_level_list(tenant=self.tenant, business=business))
        latest = selectors.hierarchy_latest_update(tenant=self.tenant, business=business)
        if formset is None and business.is_location:
            initial = [{"level_name": row.level_name, "level_value": row.level_value}
                       for row in levels]
            if latest is not None and latest.state != OutboxEntry.State.ACCEPTED:
                # Pending, rejected or failed: start from what was last asked for, not lost.
                # Sorted like the mirror's rows (JSON objects keep no order on PostgreSQL).
                initial = [{"level_name": name, "level_value": value}
                           for name, value in sorted(latest.payload.get("levels", {}).items())]
            formset = HierarchyFormSet(initial=initial, prefix="levels")
        context.update(levels=levels, latest=latest, formset=formset,
                       editable=business.is_location and business.removed_at is None)
        return context

    def post(self, request, *args, **kwargs):
        business = self.get_business()
        if not business.is_location or business.removed_at is not None:
            messages.error(request, "Hierarchy levels belong to current locations only.")
            return redirect("business_hierarchy", slug=self.tenant.slug,
                            remote_id=business.remote_id)
        formset = HierarchyFormSet(request.POST, prefix="levels")
        if not formset.is_valid():
            return self.render_to_response(self.get_context_data(formset=formset))
        services.hierarchy_update(tenant=self.tenant, actor=request.user, business=business,
                                  levels=formset.levels())
        messages.success(request, "Hierarchy saved and queued for the provider; its state "
                                  "shows below.")
        return redirect("business_hierarchy", slug=self.tenant.slug, remote_id=business.remote_id)

import csv
import math
from dataclasses import dataclass

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.generic import TemplateView, View

from accounts import access, selectors, services
from accounts.links import business_detail_prefix
from accounts.models import Business
from accounts.selectors import membership_list_for_user
from accounts.tenant_views import TenantViewMixin
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
    Column("Work to do", "triage"),
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
        # "Change all N matching locations": a bulk change takes locations, never removed ones.
        if access.allows(self.membership, "bulk_change_new", write=True) \
                and not cleaned.get("removed"):
            context["bulk_location_count"] = queryset.filter(type=Business.Type.BUSINESS,
                                                             removed_at__isnull=True).count()
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



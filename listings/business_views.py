"""The Listing status and Hierarchy tabs of one business: its status report and sites (or the
totals of what is under a container), and its hierarchy levels, edited and sent through the
outbox."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.utils import timezone
from django.views.generic import TemplateView

from accounts.charts import status_segments
from accounts.tenant_views import BusinessTabMixin, locations_only
from accounts.triage import DISABLED, PUBLISHED, SCAN_STATE, listing_work
from listings import selectors, services
from listings.charts import health_segments
from listings.forms import HierarchyFormSet
from outbox.models import OutboxEntry
from portal.charts import donut, stacked_bar

SITE_STATUS_BADGES = {"Synced": "ok", "In Progress": "info", "Action Required": "bad",
                      "Connect": "warn"}
LOCATION_STATUS_BADGES = {"Published": "ok", "Scan State": "info", "Disabled": "bad"}
REFRESH_WAIT_SECONDS = 120


def publish_advice(report) -> tuple[str, bool]:
    """What to do about the location's listings, in the portal's words, and whether the listing
    editor is where to do it.

    The report's `publishListings` is the provider's own prompt, written for its API ("update
    them with create listing"); it is replaced by the portal's words for the three statuses
    interface.md names, and shown as the provider gave it only for a status the portal does
    not know.
    """
    if report.location_status == PUBLISHED:
        return ("The listings are published. To change what the directory sites show, change "
                "this location in the listing editor; each version sent goes to every site.", True)
    if report.location_status == SCAN_STATE:
        sites = f"its {report.total_sites} sites" if report.total_sites else "the directory sites"
        return (f"Not published yet: send this location's listing from the listing editor to "
                f"publish it on {sites}.", True)
    if report.location_status == DISABLED:
        return ("This location is inactive at the provider, so nothing is published to its "
                "sites until it is active again.", False)
    return report.publish_listings, False


class BusinessDetailView(BusinessTabMixin, TemplateView):
    """Tab "Listing status": the status report and its sites, or what is under a container."""

    template_name = "accounts/business_detail.html"
    removed_shown = True

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
                context["publish_advice"], context["advice_in_editor"] = publish_advice(report)
                context["work"] = listing_work(report)
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
        try:
            services.listing_status_refresh_request(tenant=self.tenant, actor=request.user,
                                                    business=business)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            # One instruction only: the page below says it reloads by itself while it waits.
            messages.success(request, "Refresh requested: the provider's status report is being "
                                      "fetched.")
        return redirect("business_detail", slug=self.tenant.slug, remote_id=business.remote_id)


class BusinessHierarchyView(BusinessTabMixin, TemplateView):
    """Tab "Hierarchy": the location's levels, edited as a whole and sent through the outbox."""

    business_types = locations_only("Hierarchy levels")
    template_name = "accounts/business_hierarchy.html"
    removed_shown = True

    def get_context_data(self, formset=None, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        levels = list(selectors.hierarchy_level_list(tenant=self.tenant, business=business))
        latest = selectors.hierarchy_latest_update(tenant=self.tenant, business=business)
        if formset is None and business.is_location:
            initial = [{"level_name": row.level_name, "level_value": row.level_value}
                       for row in levels]
            if latest is not None and latest.state != OutboxEntry.State.ACCEPTED:
                # Pending, rejected or failed: start from what was last asked for, not lost,
                # in the order it was entered.
                initial = [{"level_name": name, "level_value": value} for name, value
                           in selectors.hierarchy_requested_levels(latest).items()]
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

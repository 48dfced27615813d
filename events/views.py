"""Pages of provider events: live updates on or off, the events received, one event in full."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.views.generic import TemplateView

from accounts.tenant_views import TenantViewMixin
from events import selectors, services
from events.filtersets import ProviderEventFilterSet
from events.models import ProviderEvent
from portal.charts import PALETTE, Segment, column_chart
from portal.pagination import paginate

PAGE_SIZE = 50
EVENT_COLORS = {services.LISTING_UPDATED: PALETTE["info"],
                services.SURVEY_COMPLETED: PALETTE["extra"]}


def events_chart(daily: list[dict]):
    columns = [(row["day"].strftime("%d"),
                [Segment(name, row["counts"].get(name, 0), color)
                 for name, color in EVENT_COLORS.items()])
               for row in daily]
    return column_chart(columns, title="Events received per day, last 14 days",
                        width=1000, height=170)


class ProviderEventListView(TenantViewMixin, TemplateView):
    template_name = "events/events.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        receiver = selectors.event_receiver_get(tenant=self.tenant)
        filterset = ProviderEventFilterSet(
            self.request.GET or None, queryset=selectors.provider_event_list(tenant=self.tenant,
                                                            membership=self.membership))
        daily = selectors.provider_event_daily_counts(tenant=self.tenant,
                                                      membership=self.membership)
        context.update(
            receiver=receiver,
            receiver_active=receiver is not None and receiver.disabled_at is None,
            receiver_url=services.event_receiver_url(receiver) if receiver else "",
            public_url_set=bool(settings.PORTAL_PUBLIC_URL),
            receiver_events=services.RECEIVER_EVENTS,
            filter_form=filterset.form,
            page_obj=paginate(self.request, filterset.qs, PAGE_SIZE),
            chart=events_chart(daily),
            chart_total=sum(sum(row["counts"].values()) for row in daily),
            legend=EVENT_COLORS,
        )
        return context


class EventReceiverEnableView(TenantViewMixin, TemplateView):
    """POST: subscribe the portal for live updates, or renew its credentials."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        renewing = selectors.event_receiver_get(tenant=self.tenant) is not None
        try:
            services.event_receiver_enable(tenant=self.tenant, actor=request.user)
        except services.ReceiverUnavailable as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, "Live updates are being renewed with new credentials."
                             if renewing else "Live updates are being turned on: the "
                             "subscriptions are queued.")
        return redirect("provider_event_list", slug=self.tenant.slug)


class EventReceiverDisableView(TenantViewMixin, TemplateView):
    template_name = "events/receiver_disable_confirm.html"

    def get_receiver(self):
        receiver = selectors.event_receiver_get(tenant=self.tenant)
        if receiver is None or receiver.disabled_at is not None:
            raise Http404("Live updates are not on.")
        return receiver

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["receiver"] = self.get_receiver()
        context["receiver_events"] = services.RECEIVER_EVENTS
        return context

    def post(self, request, *args, **kwargs):
        services.event_receiver_disable(tenant=self.tenant, actor=request.user,
                                        receiver=self.get_receiver())
        messages.success(request, "Live updates are turned off; the removals are queued.")
        return redirect("provider_event_list", slug=self.tenant.slug)


class ProviderEventDetailView(TenantViewMixin, TemplateView):
    template_name = "events/event_detail.html"

    def get_event(self) -> ProviderEvent:
        event = selectors.provider_event_get(tenant=self.tenant, pk=self.kwargs["pk"],
                                             membership=self.membership)
        if event is None:
            raise Http404("No such event.")
        return event

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["event"] = self.get_event()
        return context

    def post(self, request, *args, **kwargs):
        event = self.get_event()
        try:
            services.provider_event_retry(tenant=self.tenant, actor=request.user, event=event)
        except ValueError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, "The event will be processed again.")
        return redirect("provider_event_detail", slug=self.tenant.slug, pk=event.pk)

"""Pages of the listings app: a business's Q&A tab, and the account's custom fields, AI-search
configuration and webhook subscriptions. Thin: reads come from selectors, writes from services.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.generic import TemplateView

from accounts.tenant_views import BusinessTabMixin, TenantViewMixin
from listings import selectors, services
from listings.forms import CustomFieldForm, SubscriptionForm
from listings.models import webhook_event_label
from outbox.models import OutboxEntry
from portal.exceptions import ProviderUnavailable
from portal.forms import add_service_errors
from portal.pagination import paginate

Kind = OutboxEntry.Kind
QNA_PAGE_SIZE = 20
RECENT_CHANGES = 10


# -- Q&A ----------------------------------------------------------------------------------------

class BusinessQnaView(BusinessTabMixin, TemplateView):
    template_name = "listings/qna.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        context["page_obj"] = paginate(
            self.request, selectors.question_list(tenant=self.tenant, business=business),
            QNA_PAGE_SIZE)
        context["deletion"] = selectors.qna_deletion_latest(tenant=self.tenant,
                                                            business=business)
        # What a deletion would cover (for a container, the questions of its locations too):
        # without any, the page offers no deletion.
        context["deletable_count"] = selectors.qna_question_count(tenant=self.tenant,
                                                                  business=business)
        return context


class QnaDeleteConfirmView(BusinessTabMixin, TemplateView):
    """Asks before deleting; only managers get here, so viewers see no such control."""

    template_name = "listings/qna_delete_confirm.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        context["question_count"] = selectors.qna_question_count(tenant=self.tenant,
                                                                 business=business)
        context["deletion"] = selectors.qna_deletion_latest(tenant=self.tenant,
                                                            business=business)
        return context

    def post(self, request, *args, **kwargs):
        business = self.get_business()
        try:
            services.qna_delete_all(tenant=self.tenant, actor=request.user, business=business)
        except ValidationError as exc:
            for message in exc.messages:
                messages.error(request, message)
        else:
            messages.success(request, f"Deletion of all Q&A of {business.name} is queued. The "
                                      "list updates once the provider confirms it.")
        return redirect("business_qna", slug=self.tenant.slug, remote_id=business.remote_id)


# -- custom fields ------------------------------------------------------------------------------

# The provider's custom-field codes that are about one field of the form (5022 a duplicate name,
# 5039 a reserved one, 5031 an unknown type); the others are about the whole request.
CUSTOM_FIELD_ERROR_FIELDS = {5022: "field_name", 5039: "field_name", 5031: "type"}


class CustomFieldListView(TenantViewMixin, TemplateView):
    template_name = "listings/custom_fields.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        context["fields"] = selectors.custom_field_list(tenant=self.tenant)
        context["changes"] = selectors.outbox_entry_list(
            tenant=self.tenant, kinds=[Kind.CUSTOM_FIELD_CREATE])[:RECENT_CHANGES]
        if self.may_change:
            context["form"] = form or self._form_to_fix() or CustomFieldForm(tenant=self.tenant)
        return context

    def _form_to_fix(self) -> CustomFieldForm | None:
        """`?fix=<id>` of a refused change: its values back in the form, with the provider's
        message on the field it is about."""
        raw_id = self.request.GET.get("fix", "")
        if not (raw_id.isascii() and raw_id.isdigit()):
            return None
        entry = selectors.outbox_entry_get(tenant=self.tenant, kinds=[Kind.CUSTOM_FIELD_CREATE],
                                           pk=int(raw_id))
        if entry is None or entry.state not in (OutboxEntry.State.REJECTED,
                                                OutboxEntry.State.FAILED):
            raise Http404("No such refused change.")
        form = CustomFieldForm.from_payload(entry.payload, tenant=self.tenant)
        form.is_valid()
        message = f"The provider refused it: {entry.provider_message or entry.last_error}"
        if entry.provider_code is not None:
            message += f" (code {entry.provider_code})"
        field = CUSTOM_FIELD_ERROR_FIELDS.get(entry.provider_code)
        if field is None or not form.has_error(field):
            form.add_error(field, message)
        return form

    def post(self, request, *args, **kwargs):
        form = CustomFieldForm(request.POST, tenant=self.tenant)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form))
        data = form.create_arguments()
        services.custom_field_create(tenant=self.tenant, actor=request.user, **data)
        messages.success(request, f"Custom field “{data['field_name']}” is queued; it is listed "
                                  "once the provider accepts it.")
        return redirect("custom_field_list", slug=self.tenant.slug)


# -- AI search ----------------------------------------------------------------------------------

# The provider's codes on this page (interface.md shows CREDIT_SYSTEM and Monthly), in words.
AI_SEARCH_BILLING_LABELS = {"CREDIT_SYSTEM": "Paid with credits from the account's balance"}
AI_SEARCH_FREQUENCY_LABELS = {"DAILY": "Every day", "WEEKLY": "Every week",
                              "MONTHLY": "Every month", "QUARTERLY": "Every quarter",
                              "YEARLY": "Every year"}


def provider_code_label(code: str, labels: dict[str, str]) -> str:
    """A provider's code as words: its known label, else the code with its underscores and
    capitals undone ("PAY_PER_USE" reads "Pay per use"), never the bare code."""
    code = (code or "").strip()
    if not code:
        return ""
    known = labels.get(code.upper())
    if known:
        return known
    words = code.replace("_", " ").replace("-", " ")
    return words[:1].upper() + words[1:].lower() if words.isupper() or "_" in code else words


class AiSearchView(TenantViewMixin, TemplateView):
    template_name = "listings/ai_search.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        configuration = selectors.ai_search_configuration_get(tenant=self.tenant)
        context["configuration"] = configuration
        if configuration is not None:
            context["billing_type_label"] = provider_code_label(configuration.billing_type,
                                                                AI_SEARCH_BILLING_LABELS)
            context["frequency_label"] = provider_code_label(configuration.frequency,
                                                             AI_SEARCH_FREQUENCY_LABELS)
        return context

    def post(self, request, *args, **kwargs):
        try:
            services.ai_search_configuration_refresh(tenant=self.tenant, actor=request.user)
        except ProviderUnavailable as exc:
            messages.error(request, f"Could not refresh the configuration. {exc}")
        else:
            messages.success(request, "The configuration was refreshed from the provider.")
        return redirect("ai_search", slug=self.tenant.slug)


# -- webhooks -----------------------------------------------------------------------------------

class SubscriptionListView(TenantViewMixin, TemplateView):
    template_name = "listings/subscriptions.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        context["subscriptions"] = selectors.subscription_list(tenant=self.tenant)
        context["removals_open"] = selectors.subscription_removals_open(tenant=self.tenant)
        context["changes"] = selectors.outbox_entry_list(
            tenant=self.tenant, kinds=[Kind.SUBSCRIBE, Kind.UNSUBSCRIBE])[:RECENT_CHANGES]
        if self.may_change:
            context["form"] = form or SubscriptionForm(tenant=self.tenant)
        return context

    def post(self, request, *args, **kwargs):
        form = SubscriptionForm(request.POST, tenant=self.tenant)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form))
        try:
            entries = services.subscriptions_create(tenant=self.tenant, actor=request.user,
                                                    **form.cleaned_data)
        except ValidationError as exc:  # a twin request queued the same events meanwhile
            add_service_errors(form, exc)
            return self.render_to_response(self.get_context_data(form=form))
        url = form.cleaned_data["webhook_url"]
        events = ", ".join(f"“{webhook_event_label(entry.payload['eventName'])}”"
                           for entry in entries)
        if len(entries) == 1:
            message = f"The subscription of {url} to {events} is queued."
        else:
            message = (f"{len(entries)} subscriptions of {url} are queued, one per event as "
                       f"the provider takes them: {events}.")
        messages.success(request, message)
        return redirect("subscription_list", slug=self.tenant.slug)


class SubscriptionDeleteConfirmView(TenantViewMixin, TemplateView):
    template_name = "listings/subscription_delete_confirm.html"

    def get_subscription(self):
        subscription = selectors.subscription_get(tenant=self.tenant,
                                                  remote_id=self.kwargs["remote_id"])
        if subscription is None:
            raise Http404("No such subscription.")
        return subscription

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["subscription"] = self.get_subscription()
        return context

    def post(self, request, *args, **kwargs):
        subscription = self.get_subscription()
        services.subscription_delete(tenant=self.tenant, actor=request.user,
                                     subscription=subscription)
        message = (f"Removal of the subscription of {subscription.webhook_url} to "
                   f"“{subscription.event_label}” is queued.")
        if subscription.is_live_update_hook:
            message += (" The portal's live updates for this event stop once the provider "
                        "confirms it; turn them on again on the Events page.")
        messages.success(request, message)
        return redirect("subscription_list", slug=self.tenant.slug)

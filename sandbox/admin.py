"""Django admin for the sandbox: partner accounts (fault injection), businesses, and what the
portal sent as listings. API keys are never shown; only their short prefix."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html

from sandbox.activity import survey_response_add
from sandbox.auth import hash_key, key_prefix
from sandbox.events import deliver
from sandbox.models import (
    Business,
    EventDelivery,
    Listing,
    ListingSubmission,
    PartnerAccount,
    SiteStatus,
    Subscription,
    Survey,
)
from sandbox.tree import rebuild_ancestry


def pretty_json(value: object) -> str:
    return format_html("<pre style='white-space: pre-wrap'>{}</pre>", json.dumps(value, indent=2))


class PartnerAccountForm(forms.ModelForm):
    new_api_key = forms.CharField(
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False),
        help_text="Set or replace the partner's API key. Only its hash and prefix are kept.",
    )

    class Meta:
        model = PartnerAccount
        fields = (
            "name",
            "rate_limit_count",
            "rate_limit_window_seconds",
            "latency_ms",
            "error_rate",
            "status_step_seconds",
        )

    def clean(self):
        cleaned = super().clean()
        new_key = cleaned.get("new_api_key")
        if not self.instance.pk and not new_key:
            self.add_error("new_api_key", "A new partner account needs an API key.")
        if new_key:
            taken = PartnerAccount.objects.filter(key_hash=hash_key(new_key))
            if taken.exclude(pk=self.instance.pk).exists():
                self.add_error("new_api_key", "Another partner account already uses this key.")
        return cleaned

    def save(self, commit: bool = True) -> PartnerAccount:
        new_key = self.cleaned_data.get("new_api_key")
        if new_key:
            self.instance.key_hash = hash_key(new_key)
            self.instance.key_prefix = key_prefix(new_key)
        return super().save(commit)


@admin.register(PartnerAccount)
class PartnerAccountAdmin(admin.ModelAdmin):
    form = PartnerAccountForm
    list_display = (
        "name",
        "key_display",
        "account_number",
        "rate_limit",
        "latency_ms",
        "error_rate",
        "status_step_seconds",
        "seeded_locations",
        "updated_at",
    )
    search_fields = ("name", "key_prefix", "=account_number")
    readonly_fields = ("key_display", "account_number", "seed", "seeded_locations", "created_at")
    fieldsets = (
        (None, {"fields": ("name", "key_display", "new_api_key", "account_number")}),
        (
            "Fault injection",
            {
                "fields": (
                    "rate_limit_count",
                    "rate_limit_window_seconds",
                    "latency_ms",
                    "error_rate",
                    "status_step_seconds",
                )
            },
        ),
        ("Seeding", {"fields": ("seed", "seeded_locations", "created_at")}),
    )

    @admin.display(description="API key")
    def key_display(self, partner: PartnerAccount) -> str:
        return f"{partner.key_prefix}…" if partner.key_prefix else "—"

    @admin.display(description="Rate limit")
    def rate_limit(self, partner: PartnerAccount) -> str:
        return f"{partner.rate_limit_count} / {partner.rate_limit_window_seconds} s"


class SiteStatusInline(admin.TabularInline):
    model = SiteStatus
    fields = ("site_id", "status", "errors", "url", "connected", "next_change_at", "updated_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Business)
class BusinessAdmin(admin.ModelAdmin):
    list_display = (
        "number",
        "name",
        "type",
        "status",
        "city",
        "country_code",
        "parent_number",
        "partner",
    )
    list_filter = ("type", "status", "country_code", "partner")
    search_fields = ("=number", "name", "alias", "city")
    list_select_related = ("partner", "parent")
    raw_id_fields = ("parent",)
    readonly_fields = ("last_updated",)
    inlines = (SiteStatusInline,)

    @admin.display(description="Parent", ordering="parent__number")
    def parent_number(self, business: Business) -> int | None:
        return business.parent.number if business.parent else None

    def save_model(self, request, obj: Business, form, change: bool) -> None:
        if not obj.last_updated:
            obj.last_updated = timezone.now()
        super().save_model(request, obj, form, change)
        if not change or "parent" in form.changed_data:
            rebuild_ancestry(obj)


@admin.register(Listing)
class ListingAdmin(admin.ModelAdmin):
    list_display = ("location_number", "location_name", "fixed", "version", "submitted_at")
    list_filter = ("fixed", "partner")
    search_fields = ("=location__number", "location__name")
    list_select_related = ("location",)
    fields = ("location", "fixed", "version", "submitted_at", "payload_display")
    readonly_fields = fields

    @admin.display(description="Location", ordering="location__number")
    def location_number(self, listing: Listing) -> int:
        return listing.location.number

    @admin.display(description="Name")
    def location_name(self, listing: Listing) -> str:
        return listing.location.name

    @admin.display(description="Accepted listing (merged)")
    def payload_display(self, listing: Listing) -> str:
        return pretty_json(listing.payload)

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ListingSubmission)
class ListingSubmissionAdmin(admin.ModelAdmin):
    """What the portal sent to create listing, accepted or rejected, body as received."""

    list_display = ("received_at", "location", "accepted", "error_code", "error_message")
    list_filter = ("accepted", "error_code", "partner")
    search_fields = ("=location__number", "location__name", "error_message")
    list_select_related = ("location",)
    date_hierarchy = "received_at"
    fields = ("location", "received_at", "accepted", "error_code", "error_message", "body_display")
    readonly_fields = fields

    @admin.display(description="Body")
    def body_display(self, submission: ListingSubmission) -> str:
        try:
            return pretty_json(json.loads(submission.body))
        except ValueError:
            return format_html("<pre>{}</pre>", submission.body)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ("subscription_id", "event_name", "webhook_url", "account", "created_at")
    list_filter = ("event_name", "partner")
    search_fields = ("subscription_id", "webhook_url", "=account__number")
    list_select_related = ("account",)
    exclude = ("auth",)
    raw_id_fields = ("account",)


@admin.register(EventDelivery)
class EventDeliveryAdmin(admin.ModelAdmin):
    list_display = ("created_at", "event_name", "business_number", "webhook_url", "state",
                    "attempts", "last_status")
    list_filter = ("state", "event_name", "partner")
    search_fields = ("=business_number", "webhook_url", "subscription_id")
    exclude = ("auth",)
    readonly_fields = ("payload_pretty",)
    actions = ("deliver_now",)

    @admin.display(description="Payload")
    def payload_pretty(self, obj: EventDelivery) -> str:
        return pretty_json(obj.payload)

    @admin.action(description="Deliver the selected pending events now")
    def deliver_now(self, request, queryset) -> None:
        pending = queryset.filter(state=EventDelivery.State.PENDING)
        pending.update(next_attempt_at=timezone.now())
        arrived = deliver(pending.values_list("pk", flat=True))
        self.message_user(request, f"{arrived} of {pending.count()} pending deliveries arrived.")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("survey_id", "name", "owner", "partner")
    list_filter = ("partner",)
    search_fields = ("=survey_id", "name")
    raw_id_fields = ("owner",)
    actions = ("add_completed_response",)

    @admin.action(description="A customer completes the selected surveys (sends SURVEY_COMPLETED)")
    def add_completed_response(self, request, queryset) -> None:
        for survey in queryset:
            try:
                response = survey_response_add(survey=survey)
            except ValueError as exc:
                self.message_user(request, str(exc), level=messages.WARNING)
            else:
                self.message_user(request, f"Response {response.response_id} added to "
                                           f"survey {survey.survey_id}.")

"""Forms of the sync and settings pages. No form has a tenant field: the view passes the tenant
in, and every id typed by the user is looked up inside it."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from accounts.audit_labels import action_choices
from accounts.models import Membership, Reseller, Role, WireDialect
from accounts.profile_forms import zone_choices
from accounts.settings_selectors import limit_business_get
from portal.outbound import UnsafeURL, check_provider_base_url

LIMIT_DATALIST_ID = "settings-limit-suggestions"
MAX_BIGINT = 2**63 - 1


class ConnectionForm(forms.Form):
    provider_base_url = forms.URLField(
        label="Provider base URL", max_length=500, assume_scheme="https",
        help_text="The address of the provider's API, e.g. https://api.example.com. "
                  "It must use https. Moving it to another host or port needs the API key "
                  "entered again with it.",
    )
    account_number = forms.IntegerField(
        label="Account number", min_value=1, max_value=MAX_BIGINT,
        help_text="The provider's business number of this agency's own account.",
    )
    api_key = forms.CharField(
        label="API key", required=False, max_length=500, strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off",
                                                              "spellcheck": "false"}),
        help_text="Leave empty to keep the stored key, as long as the base URL keeps its "
                  "scheme, host and port: the stored key is only sent to the address it was "
                  "entered with. A key entered here is stored encrypted and is never shown "
                  "again.",
    )
    wire_dialect = forms.ChoiceField(
        label="Names on the wire", choices=WireDialect.choices, required=False,
        help_text="The real provider speaks its own names (its listing objects and category "
                  "sources carry the vendors' names); the embedded sandbox speaks the neutral "
                  "ones unless its account was seeded with the provider's.",
    )
    rate_limit_auto = forms.TypedChoiceField(
        label="Rate limit", coerce=lambda value: value == "auto", widget=forms.RadioSelect,
        required=False, empty_value=None,
        choices=[("auto", "Learn it (recommended): start low, speed up while the provider "
                          "answers, slow down when it says too many"),
                 ("fixed", "I know it: use the count below")],
        help_text="The provider publishes no limit; its support gives it when asked.",
    )
    rate_limit_count = forms.IntegerField(
        label="Requests allowed", min_value=1, max_value=1_000_000, required=False,
        help_text="How many provider requests every worker together may make per window.",
    )
    rate_limit_seconds = forms.IntegerField(
        label="Per window of (seconds)", min_value=1, max_value=86_400, required=False,
    )
    time_zone = forms.ChoiceField(
        label="Agency's time zone", required=False,
        help_text="Report schedules send at their day and hour in this zone.",
        error_messages={"invalid_choice": "Time zone: choose one from the list "
                                          "(“%(value)s” is not one of them)."})

    def __init__(self, *args, reseller: Reseller, **kwargs):
        self.reseller = reseller
        kwargs.setdefault("initial", {
            "provider_base_url": reseller.provider_base_url,
            "account_number": reseller.account_number,
            "rate_limit_count": reseller.rate_limit_count,
            "rate_limit_seconds": reseller.rate_limit_seconds,
            "rate_limit_auto": "auto" if reseller.rate_limit_auto else "fixed",
            "wire_dialect": reseller.wire_dialect,
            "time_zone": reseller.time_zone,
        })
        super().__init__(*args, **kwargs)
        # Every zone but the blank "portal's zone" of a member's profile: an agency has one.
        self.fields["time_zone"].choices = zone_choices(current=reseller.time_zone)[1:]
        if not reseller.has_api_key:
            self.fields["api_key"].help_text = ("No key is stored yet. The key is stored "
                                                "encrypted and is never shown again.")

    def clean_provider_base_url(self) -> str:
        url = self.cleaned_data["provider_base_url"]
        try:
            check_provider_base_url(url)
        except UnsafeURL as exc:
            raise ValidationError(str(exc), code="unsafe_url") from exc
        return url

    def clean_api_key(self) -> str:
        key = self.cleaned_data.get("api_key", "")
        if key and any(ch.isspace() for ch in key):
            raise ValidationError("An API key has no spaces or line breaks.", code="invalid")
        return key

    def clean(self):
        data = super().clean()
        # A form sent without these (an older page) keeps what the connection has.
        if data.get("wire_dialect") in (None, ""):
            data["wire_dialect"] = self.reseller.wire_dialect
        if not data.get("time_zone") and "time_zone" not in self.errors:
            data["time_zone"] = self.reseller.time_zone
        if data.get("rate_limit_auto") is None and "rate_limit_auto" not in self.errors:
            data["rate_limit_auto"] = self.reseller.rate_limit_auto
        for name in ("rate_limit_count", "rate_limit_seconds"):
            if data.get(name) is not None or name in self.errors:
                continue
            if data.get("rate_limit_auto") is False:
                self.add_error(name, ValidationError(
                    "Enter a number: a known rate limit needs its count and its window.",
                    code="required"))
            else:  # a learned limit keeps the count it had, for the day it is known again
                data[name] = getattr(self.reseller, name)
        return data


class _LimitMixin(forms.Form):
    """A subtree limit typed as a business id and looked up inside the tenant, among the
    businesses that the acting member can see."""

    role = forms.ChoiceField(label="Role", choices=Role.choices, initial=Role.VIEWER,
                             help_text="Viewers read; managers also edit; owners also manage "
                                       "settings and members.")
    limited_to = forms.IntegerField(
        label="Limit to a business (id)", required=False, min_value=1, max_value=MAX_BIGINT,
        widget=forms.NumberInput(attrs={"list": LIMIT_DATALIST_ID}),
        help_text="The member then sees only this business and everything under it. "
                  "Leave empty for the whole account.",
    )

    def __init__(self, *args, tenant: Reseller, actor_membership: Membership | None, **kwargs):
        self.tenant = tenant
        self.actor_membership = actor_membership
        super().__init__(*args, **kwargs)
        root = getattr(actor_membership, "limited_to", None)
        if root is not None:
            # A limit can never be widened from inside it: a limited owner's members are
            # limited too, to the owner's subtree or part of it.
            field = self.fields["limited_to"]
            field.required = True
            field.error_messages["required"] = (
                f"Your access is limited to {root.name}, so choose it ({root.remote_id}) or a "
                "business under it.")
            field.help_text = (f"The member then sees only this business and everything under "
                               f"it. It must be {root.name} ({root.remote_id}) or a business "
                               "under it.")
            self.initial.setdefault("limited_to", root.remote_id)

    def clean_limited_to(self):
        remote_id = self.cleaned_data.get("limited_to")
        if remote_id is None:
            return None
        business = limit_business_get(tenant=self.tenant, membership=self.actor_membership,
                                      remote_id=remote_id)
        if business is None:
            raise ValidationError(f"{self.tenant.name} has no business with id {remote_id}.",
                                  code="not_found")
        return business


class InviteForm(_LimitMixin):
    email = forms.EmailField(label="Email", max_length=254,
                             widget=forms.EmailInput(attrs={"autocomplete": "off"}))
    field_order = ["email", "role", "limited_to"]


class MemberForm(_LimitMixin):
    def __init__(self, *args, membership: Membership, **kwargs):
        kwargs.setdefault("initial", {
            "role": membership.role,
            "limited_to": getattr(membership.limited_to, "remote_id", None),
        })
        super().__init__(*args, **kwargs)


class AuditFilterForm(forms.Form):
    action = forms.ChoiceField(label="Action", required=False)
    actor = forms.CharField(label="Who (email contains)", required=False, max_length=254)
    date_from = forms.DateField(label="From", required=False,
                                widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(label="To", required=False,
                              widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, actions: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", "Any action"), *action_choices(actions)]

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("date_from"), cleaned.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The end date is before the start date.")
        return cleaned

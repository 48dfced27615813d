"""Pages of alerts: the member's notifications, opening one, their channels, and the rules."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.generic import TemplateView

from accounts.tenant_views import TenantViewMixin
from alerts import selectors, services
from alerts.kinds import KINDS, Channel, Kind
from portal.forms import add_service_errors
from portal.pagination import paginate

PAGE_SIZE = 25


class NotificationFilterForm(forms.Form):
    kind = forms.ChoiceField(label="Kind", required=False,
                             choices=[("", "Every kind"), *Kind.choices])
    unread = forms.ChoiceField(label="Show", required=False,
                               choices=[("", "Read and unread"), ("true", "Unread only")])


class NotificationListView(TenantViewMixin, TemplateView):
    """The member's notifications, unread first; POST marks them all read (of the kind shown
    when filtered)."""

    template_name = "alerts/notifications.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        form = NotificationFilterForm(self.request.GET or None)
        kind, unread = "", None
        if form.is_valid():
            kind = form.cleaned_data["kind"]
            unread = True if form.cleaned_data["unread"] == "true" else None
        rows = selectors.notification_list(membership=self.membership, unread=unread,
                                           kind=kind)
        context.update(filter_form=form, page_obj=paginate(self.request, rows, PAGE_SIZE),
                       kind=kind, unread_count=selectors.notification_unread_count(
                           membership=self.membership))
        return context

    def post(self, request, *args, **kwargs):
        kind = request.POST.get("kind", "")
        marked = services.notification_read_all(
            tenant=self.tenant, actor=request.user, membership=self.membership,
            kind=kind if kind in Kind.values else "")
        messages.success(request, f"{marked} notification{'s' if marked != 1 else ''} "
                                  "marked read." if marked else "Nothing was unread.")
        return redirect("notification_list", slug=self.tenant.slug)


class NotificationOpenView(TenantViewMixin, TemplateView):
    """Opening a notification (from the bell's list or an email): it is read, and the page to
    act on opens."""

    http_method_names = ["get"]

    def get(self, request, *args, **kwargs):
        notification = selectors.notification_get(membership=self.membership, pk=kwargs["pk"])
        if notification is None:
            raise Http404("No such notification.")
        services.notification_read(tenant=self.tenant, actor=request.user,
                                   notification=notification)
        link = notification.alert.link
        # Only a path of the portal: never an address elsewhere.
        if not link.startswith("/") or link.startswith("//"):
            return redirect("notification_list", slug=self.tenant.slug)
        return redirect(link)


def _preferences_form(data=None, *, channels: dict[str, str]):
    form = forms.Form(data)
    for kind in Kind:
        form.fields[kind.value] = forms.ChoiceField(
            label=kind.label, choices=Channel.choices, initial=channels[kind.value],
            help_text=KINDS[kind].description)
    return form


class NotificationPreferencesView(TenantViewMixin, TemplateView):
    """The member's own channel for each kind of alert."""

    template_name = "alerts/preferences.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        channels = selectors.notification_channels(membership=self.membership)
        context.update(form=form or _preferences_form(channels=channels),
                       digest_hour=services.DIGEST_HOUR, time_zone=settings.TIME_ZONE)
        return context

    def post(self, request, *args, **kwargs):
        channels = selectors.notification_channels(membership=self.membership)
        form = _preferences_form(request.POST, channels=channels)
        if form.is_valid():
            changed = {kind: channel for kind, channel in form.cleaned_data.items()
                       if channel != channels[kind]}
            try:
                services.notification_preferences_update(
                    tenant=self.tenant, actor=request.user, membership=self.membership,
                    channels=changed)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, "Your notification choices are saved.")
                return redirect("notification_preferences", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class RuleForm(forms.Form):
    enabled = forms.BooleanField(label="On", required=False)
    threshold = forms.IntegerField(required=False, min_value=0)
    amount = forms.DecimalField(required=False, min_value=0, max_digits=3, decimal_places=2)
    period_days = forms.IntegerField(label="Over (days)", required=False, min_value=1)

    def __init__(self, *args, kind: str, rule, **kwargs):
        info = KINDS[kind]
        initial = {"enabled": rule.enabled, "threshold": rule.threshold,
                   "amount": rule.amount, "period_days": rule.period_days}
        super().__init__(*args, prefix=kind, initial=initial, **kwargs)
        self.kind, self.label, self.description = kind, Kind(kind).label, info.description
        for name, label in (("threshold", info.threshold_label),
                            ("amount", info.amount_label)):
            if getattr(info, name) is None:
                del self.fields[name]
            else:
                self.fields[name].label = label
                self.fields[name].required = True
        if info.period_days is None:
            del self.fields["period_days"]
        else:
            self.fields["period_days"].required = True

    def changes(self, rule) -> dict:
        return {name: value for name, value in self.cleaned_data.items()
                if value != getattr(rule, name)}


class AlertRulesView(TenantViewMixin, TemplateView):
    """The account's rules: owners turn them on or off and set their thresholds; managers
    read them."""

    template_name = "alerts/rules.html"

    def get_context_data(self, rule_forms=None, **kwargs):
        context = super().get_context_data(**kwargs)
        rules = selectors.alert_rule_map(tenant=self.tenant)
        context["rule_forms"] = rule_forms or [RuleForm(kind=kind, rule=rule)
                                               for kind, rule in rules.items()]
        return context

    def post(self, request, *args, **kwargs):
        rules = selectors.alert_rule_map(tenant=self.tenant)
        rule_forms = [RuleForm(request.POST, kind=kind, rule=rule)
                      for kind, rule in rules.items()]
        if all(form.is_valid() for form in rule_forms):
            changes = {form.kind: form.changes(rules[form.kind]) for form in rule_forms}
            changes = {kind: values for kind, values in changes.items() if values}
            try:
                services.alert_rules_update(tenant=self.tenant, actor=request.user,
                                            changes=changes)
            except ValidationError as error:
                for form in rule_forms:
                    for key, messages_ in error.message_dict.items():
                        kind, _, name = key.partition(".")
                        if kind == form.kind:
                            form.add_error(name if name in form.fields else None, messages_)
            else:
                messages.success(request, "The alert rules are saved.")
                return redirect("alert_rules", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(rule_forms=rule_forms),
                                       status=400)

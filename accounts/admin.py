"""Django admin for support staff. It sees every tenant, so it reads through `unscoped`."""

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db import models

from accounts import services
from accounts.credentials import CredentialError
from accounts.models import AuditEvent, Business, HierarchyMapping, Membership, Reseller, User
from portal.tenancy import tenant_scope

# The scope of a form that names no reseller yet (a blank add page): a reseller no row belongs
# to, so that default managers answer no rows instead of refusing to run.
NO_RESELLER_CHOSEN = Reseller(pk=0, name="(no reseller chosen yet)")


class UnscopedAdminMixin:
    """Support staff look across tenants: the admin's querysets use the named bypass.

    Django admin also reads related rows through their default managers (a foreign key's form
    field, a raw-id field's label, unique checks on save), and a tenant-owned default manager
    refuses to work outside a tenant scope. The add and change pages therefore run inside the
    scope of the reseller the row belongs to or is being given, which also keeps a row from
    pointing at another reseller's rows.
    """

    def get_queryset(self, request):
        queryset = self.model.unscoped.get_queryset()
        ordering = self.get_ordering(request)
        return queryset.order_by(*ordering) if ordering else queryset

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        with tenant_scope(self._reseller_of_form(request, object_id) or NO_RESELLER_CHOSEN):
            response = super().changeform_view(request, object_id, form_url, extra_context)
            # Rendering reads raw-id labels: it has to happen inside the scope too.
            if hasattr(response, "render"):
                response.render()
        return response

    def _reseller_of_form(self, request, object_id) -> Reseller | None:
        """The reseller picked in the submitted form, else the row's, else the one an add page
        link names (`?reseller=<id>`)."""
        row = self.get_object(request, unquote(object_id)) if object_id is not None else None
        chosen = None
        if request.method == "POST" and self._reseller_is_editable(request, row):
            chosen = request.POST.get("reseller")
        if not chosen and row is not None:
            chosen = getattr(row, "reseller_id", None)
        if not chosen and object_id is None:
            chosen = request.GET.get("reseller")
        if not (str(chosen or "").isascii() and str(chosen or "").isdigit()):
            return None
        return Reseller.objects.filter(pk=int(chosen)).first()

    def _reseller_is_editable(self, request, row) -> bool:
        # A reseller posted to a form that does not take one must not pick the scope that the
        # form's other rows are checked in.
        return ("reseller" not in self.get_readonly_fields(request, row)
                and "reseller" not in (self.exclude or ())
                and (not self.fields or "reseller" in self.fields))


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    ordering = ["email"]
    list_display = ["email", "full_name", "is_active", "is_staff", "date_joined", "last_login"]
    list_filter = ["is_active", "is_staff", "is_superuser"]
    search_fields = ["email", "full_name"]
    fieldsets = [
        (None, {"fields": ["email", "password"]}),
        ("Profile", {"fields": ["full_name"]}),
        ("Permissions", {"fields": ["is_active", "is_staff", "is_superuser", "groups",
                                    "user_permissions"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2"]})]


@admin.register(Reseller)
class ResellerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "account_number", "status", "api_key_display",
                    "rate_limit_count", "rate_limit_seconds", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "slug", "account_number"]
    readonly_fields = ["api_key_display", "api_key_fingerprint", "api_key_updated_at",
                       "created_at", "updated_at"]
    fields = ["name", "slug", "account_number", "provider_base_url", "status",
              "rate_limit_count", "rate_limit_seconds", "api_key_display",
              "api_key_fingerprint", "api_key_updated_at", "created_at", "updated_at"]
    actions = ["reencrypt_api_keys"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_readonly_fields(self, request, obj=None):
        # A stored key is only sent to the address it was entered with, and the admin has no
        # key field to enter it again: the base URL changes where the key is entered (the
        # settings page, `manage.py reseller_create`).
        readonly = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.has_api_key:
            readonly.append("provider_base_url")
        return readonly

    @admin.display(description="API key")
    def api_key_display(self, obj: Reseller) -> str:
        return obj.api_key_masked or "—"

    @admin.action(description="Re-encrypt the API key with the newest encryption key")
    def reencrypt_api_keys(self, request, queryset):
        changed = failed = 0
        for reseller in queryset:
            try:
                changed += services.reseller_reencrypt_api_key(reseller=reseller)
            except CredentialError as exc:
                failed += 1
                self.message_user(request, f"{reseller.slug}: {exc}", messages.ERROR)
        self.message_user(request, f"Re-encrypted {changed} key(s); {failed} failed.")


@admin.register(Membership)
class MembershipAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["user", "reseller", "role", "limited_to", "created_at"]
    list_filter = ["role", "reseller"]
    search_fields = ["user__email", "reseller__name", "reseller__slug"]
    raw_id_fields = ["user", "reseller", "limited_to"]
    list_select_related = ["user", "reseller", "limited_to"]


@admin.register(Business)
class BusinessAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["name", "remote_id", "type", "status", "city", "country_code", "reseller",
                    "last_seen_at", "removed_at"]
    list_filter = ["type", "status", "country_code", "reseller"]
    search_fields = ["name", "alias", "remote_id", "city"]
    raw_id_fields = ["reseller", "parent"]
    list_select_related = ["reseller"]
    show_full_result_count = False


@admin.register(HierarchyMapping)
class HierarchyMappingAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["business", "level_name", "level_value", "reseller", "updated_at"]
    search_fields = ["level_name", "level_value", "business__name"]
    raw_id_fields = ["reseller", "business"]
    list_select_related = ["business", "reseller"]


@admin.register(AuditEvent)
class AuditEventAdmin(UnscopedAdminMixin, admin.ModelAdmin):
    list_display = ["created_at", "actor_label", "reseller", "action", "object_type", "object_id"]
    list_filter = ["action", "reseller"]
    search_fields = ["actor_label", "action", "object_id"]
    date_hierarchy = "created_at"
    list_select_related = ["reseller"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

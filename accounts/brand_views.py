"""The brand's pages: its settings (owners of the whole account), its logo and stylesheet as
files, and the sign-in and password-reset pages that know a reseller's own address."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseNotModified
from django.http.request import validate_host
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import reverse
from django.views.generic import TemplateView, View

from accounts.brand import (
    ResellerBrand,
    address_on,
    brand_admits,
    brand_for_request,
    brand_get,
    brand_logo_of,
)
from accounts.brand_emails import BrandPasswordResetForm
from accounts.brand_forms import BrandForm, LogoForm
from accounts.brand_logo import MAX_BYTES
from accounts.brand_middleware import wrong_host_response
from accounts.brand_services import brand_logo_remove, brand_logo_set, brand_update
from accounts.tenant_views import TenantViewMixin

FIELD_NAMES = {"product_name": "product name", "primary_colour": "header colour",
               "accent_colour": "accent colour", "support_email": "support email",
               "sender_name": "sender's name", "sender_email": "sender's address",
               "host": "own address"}
# A file whose address carries its version is kept for a year; any other address is checked
# again each time. Private: outside its own address a brand is its members' only.
CACHED_FOR_GOOD = "private, max-age=31536000, immutable"
CHECK_EACH_TIME = "private, no-cache"


# -- the settings page -----------------------------------------------------------------------------


class BrandSettingsView(TenantViewMixin, TemplateView):
    template_name = "accounts/settings_brand.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        saved = brand_get(tenant=self.tenant)
        context.update(
            saved_brand=saved,
            form=kwargs.get("form") or BrandForm(brand=saved),
            logo_form=kwargs.get("logo_form") or LogoForm(),
            host_served=bool(saved.host) and validate_host(saved.host, settings.ALLOWED_HOSTS),
            sign_in_address=(f"{address_on(self.request, saved.host)}{reverse('login')}"
                             if saved.host else ""),
        )
        return context

    def post(self, request, *args, **kwargs):
        form = BrandForm(request.POST, brand=brand_get(tenant=self.tenant))
        if form.is_valid():
            try:
                changed = brand_update(tenant=self.tenant, actor=request.user,
                                       request_host=request.get_host(), **form.cleaned_data)
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                if changed:
                    names = ", ".join(FIELD_NAMES[name] for name in changed)
                    messages.success(request, f"Saved the brand ({names}).")
                else:
                    messages.info(request, "Nothing changed.")
                return redirect("settings_brand", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class BrandLogoUploadView(BrandSettingsView):
    """POST only: a new logo, checked; the settings page again with the reason if refused."""

    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        form = LogoForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data["logo"]
            # Only as much as the limit and one byte more is read: a bigger file is refused
            # by its size without being read whole.
            data = upload.read(MAX_BYTES + 1)
            try:
                brand_logo_set(tenant=self.tenant, actor=request.user, data=data,
                               file_name=upload.name or "", size=upload.size)
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, "Saved the new logo.")
                return redirect("settings_brand", slug=self.tenant.slug)
        return self.render_to_response(self.get_context_data(logo_form=form), status=400)


class BrandLogoRemoveView(TenantViewMixin, TemplateView):
    """A confirmation page showing the logo; POST removes it."""

    template_name = "accounts/settings_brand_logo_remove.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["saved_brand"] = brand_get(tenant=self.tenant)
        return context

    def post(self, request, *args, **kwargs):
        if brand_logo_remove(tenant=self.tenant, actor=request.user):
            messages.success(request, "Removed the logo: the header shows the product name "
                                      "alone.")
        else:
            messages.info(request, "There was no logo to remove.")
        return redirect("settings_brand", slug=self.tenant.slug)


# -- the logo and the stylesheet, as files -------------------------------------------------------


class _BrandFileView(TenantViewMixin, View):
    """A file of the brand. On the reseller's own address it is public (its sign-in page shows
    it to people not signed in yet); anywhere else it is its members' only, like any page of
    the reseller."""

    http_method_names = ["get", "head"]

    def dispatch(self, request, *args, **kwargs):
        host_brand = getattr(request, "host_brand", None)
        if (host_brand is not None and host_brand.slug == kwargs.get("slug")
                and request.method in ("GET", "HEAD")):
            return self.answer(request, host_brand)
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, *args, **kwargs):
        return self.answer(request, brand_get(tenant=self.tenant))

    def answer(self, request, brand: ResellerBrand) -> HttpResponse:
        raise NotImplementedError

    @staticmethod
    def versioned(request, response: HttpResponse, version: str) -> HttpResponse:
        etag = f'"{version}"'
        if request.headers.get("If-None-Match") == etag:
            response = HttpResponseNotModified()
        response["ETag"] = etag
        response["Cache-Control"] = (CACHED_FOR_GOOD if request.GET.get("v") == version
                                     else CHECK_EACH_TIME)
        response["X-Content-Type-Options"] = "nosniff"
        return response


class BrandLogoView(_BrandFileView):
    """The logo as stored (a picture the portal drew again); the portal's own mark when the
    reseller has none."""

    def answer(self, request, brand):
        logo = brand_logo_of(brand)
        if logo is None:
            return redirect(static("portal/favicon.svg"))
        response = HttpResponse(logo.data, content_type=logo.content_type)
        response["Content-Disposition"] = f'inline; filename="{brand.logo_file_name}"'
        # Opened on its own, the file can do nothing but be shown.
        response["Content-Security-Policy"] = "default-src 'none'; sandbox"
        return self.versioned(request, response, logo.hash[:16])


class BrandStylesheetView(_BrandFileView):
    """The reseller's colours and logo size, over the portal's stylesheet."""

    def answer(self, request, brand):
        response = HttpResponse(brand.stylesheet, content_type="text/css; charset=utf-8")
        return self.versioned(request, response, brand.stylesheet_hash)


# -- signing in and resetting a password on a reseller's own address ------------------------------


class BrandLoginView(auth_views.LoginView):
    """The sign-in page. On a reseller's own address only its members may sign in: anyone else
    is told to use the main address, and no session is opened."""

    def form_valid(self, form):
        host_brand = getattr(self.request, "host_brand", None)
        if host_brand is not None and not brand_admits(user=form.get_user(), brand=host_brand):
            return wrong_host_response(self.request, host_brand, "sign_in_refused")
        return super().form_valid(form)


class BrandPasswordResetView(auth_views.PasswordResetView):
    """Asking for a password link. The email comes in the brand of the address it was asked
    at; on a reseller's own address it goes to that reseller's members only."""

    form_class = BrandPasswordResetForm
    subject_template_name = "emails/password_reset_subject.txt"
    email_template_name = "emails/password_reset.txt"
    html_email_template_name = "emails/password_reset.html"

    def form_valid(self, form):
        host_brand = getattr(self.request, "host_brand", None)
        form.members_of = host_brand.reseller_id if host_brand is not None else None
        self.extra_email_context = {"brand": brand_for_request(self.request)}
        return super().form_valid(form)

"""Forms of the brand settings page. They only carry what was typed: the rules (readable
colours, a usable host name, a real picture) are the services', so the page and the API say
the same thing."""

from __future__ import annotations

from django import forms

from accounts.brand import ResellerBrand
from accounts.brand_logo import FORMATS, MAX_BYTES, MAX_SIDE, MIN_SIDE
from accounts.brand_rules import DEFAULT_ACCENT, DEFAULT_PRIMARY, HOST_EXAMPLE, MIN_CONTRAST


def _colour_input(default: str, described_by: str) -> forms.TextInput:
    return forms.TextInput(attrs={
        "placeholder": default, "spellcheck": "false", "autocomplete": "off",
        "maxlength": 7, "size": 9, "class": "brand-colour", "data-default": default,
        "aria-describedby": described_by})


class BrandForm(forms.Form):
    product_name = forms.CharField(
        label="Product name", required=False, max_length=40,
        help_text="Shown in the header of every page, the sign-in page and the emails, instead "
                  "of “Reseller portal”. Short: 40 characters at most.")
    primary_colour = forms.CharField(
        label="Header colour", required=False, max_length=16,
        widget=_colour_input(DEFAULT_PRIMARY, "id_primary_colour_help id_primary_colour_contrast"),
        help_text=f"Behind the header's white text, so it needs a contrast of at least "
                  f"{MIN_CONTRAST:g}:1 with white. Empty: the portal's own.")
    accent_colour = forms.CharField(
        label="Accent colour", required=False, max_length=16,
        widget=_colour_input(DEFAULT_ACCENT, "id_accent_colour_help id_accent_colour_contrast"),
        help_text=f"Links, buttons and the current tab. Links sit on the page's light grey and "
                  f"buttons carry white text: at least {MIN_CONTRAST:g}:1 with both. Empty: the "
                  "portal's own.")
    support_email = forms.CharField(
        label="Support email", required=False, max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "off"}),
        help_text="Where members and clients write for help: shown on the sign-in and error "
                  "pages, and the address replies to the emails go to.")
    sender_name = forms.CharField(
        label="Emails come from (name)", required=False, max_length=100,
        help_text="The sender's name of the invitations and password emails.")
    sender_email = forms.CharField(
        label="Emails come from (address)", required=False, max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "off"}),
        help_text="Your mail domain must let the portal send as this address (your IT sets "
                  "this up in its SPF and DKIM records), or mail services will treat the "
                  "emails as forged. Empty: the portal's own address.")
    host = forms.CharField(
        label="Own address (host name)", required=False, max_length=253,
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocomplete": "off",
                                      "placeholder": HOST_EXAMPLE}),
        help_text=f"A name of your own domain, such as {HOST_EXAMPLE}, pointed at the portal "
                  "(ask the portal's operator to serve it). Its sign-in page shows your brand, "
                  "and only your members may sign in there.")

    def __init__(self, *args, brand: ResellerBrand, **kwargs):
        kwargs.setdefault("initial", {
            "product_name": brand.product_name if brand.has_own_name else "",
            "primary_colour": brand.primary_colour, "accent_colour": brand.accent_colour,
            "support_email": brand.support_email, "sender_name": brand.sender_name,
            "sender_email": brand.sender_email, "host": brand.host})
        super().__init__(*args, **kwargs)


class LogoForm(forms.Form):
    logo = forms.FileField(
        label="Logo file", allow_empty_file=True,
        error_messages={"required": "Choose the logo's picture file."},
        widget=forms.FileInput(attrs={"accept": ",".join(FORMATS.values())}),
        help_text=f"A PNG, JPEG or WebP picture of at most {MAX_BYTES // 1024} KB, between "
                  f"{MIN_SIDE} × {MIN_SIDE} and {MAX_SIDE} × {MAX_SIDE} pixels. It sits on the "
                  "header colour: a light or transparent logo reads best. SVG is not accepted.")

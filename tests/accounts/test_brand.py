"""The agency's brand: its rules (readable colours, a usable host name), its settings page for
owners of the whole account, its API, and where it shows (the header, its stylesheet and logo
served safely)."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.brand import DEFAULT_BRAND, brand_get, brand_logo_get
from accounts.brand_rules import contrast_ratio
from accounts.brand_services import brand_logo_remove, brand_logo_set, brand_update
from accounts.models import AuditEvent, Reseller, Role
from tests.accounts.test_brand_logo import (
    SVG_WITH_SCRIPT,
    make_brand,
    multipart,
    picture,
)
from tests.factories import BusinessFactory, MembershipFactory, ResellerFactory

pytestmark = pytest.mark.django_db

GOOD = {"product_name": "Riverside Digital", "primary_colour": "#0B3D2E",
        "accent_colour": "#8a2be2", "support_email": "Help@Riverside.example",
        "sender_name": "Riverside Digital", "sender_email": "noreply@riverside.example",
        "host": "Portal.Riverside.Example"}


@pytest.fixture
def reseller():
    return ResellerFactory(name="Riverside Agency")


@pytest.fixture
def owner(member_client, reseller):
    return member_client(Role.OWNER, reseller=reseller)


def url(name, reseller, *args):
    return reverse(name, args=[reseller.slug, *args])


def errors_of(exc: ValidationError) -> dict[str, str]:
    return {name: " ".join(messages) for name, messages in exc.message_dict.items()}


def actions(reseller) -> list[str]:
    return list(AuditEvent.unscoped.filter(reseller=reseller, action__startswith="brand.")
                .order_by("id").values_list("action", flat=True))


# -- the rules ----------------------------------------------------------------------------------


def test_the_contrast_ratio_is_wcags():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21)
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21)
    assert contrast_ratio("#2457c5", "#2457c5") == pytest.approx(1)
    # The grey that famously just misses AA on white.
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_a_brand_is_saved_normalised_and_audited(reseller):
    changed = brand_update(tenant=reseller, actor=None, **GOOD)
    assert set(changed) == set(GOOD)
    row = Reseller.objects.get(pk=reseller.pk)
    assert (row.brand_primary_colour, row.brand_support_email, row.brand_host) == (
        "#0b3d2e", "help@riverside.example", "portal.riverside.example")
    event = AuditEvent.unscoped.get(reseller=reseller, action="brand.updated")
    assert set(event.summary["fields"]) == set(GOOD)
    assert event.summary["host"] == "portal.riverside.example"
    # The same again changes nothing and records nothing.
    assert brand_update(tenant=reseller, actor=None, **GOOD) == []
    assert actions(reseller).count("brand.updated") == 1


@pytest.mark.parametrize(("field", "value", "words"), [
    ("primary_colour", "#777777", "white text of the header"),
    ("primary_colour", "#ffcc00", "#ffcc00 has 1.5:1"),
    ("accent_colour", "#ffcc00", "light grey background"),
    ("accent_colour", "abc", "#aabbcc has 1.8:1"),
])
def test_a_colour_without_readable_contrast_is_refused_naming_the_rule(reseller, field, value,
                                                                       words):
    with pytest.raises(ValidationError) as caught:
        brand_update(tenant=reseller, actor=None, **{**GOOD, field: value})
    errors = errors_of(caught.value)
    assert list(errors) == [field]
    assert "at least 4.5:1" in errors[field] and "WCAG AA" in errors[field]
    assert words in errors[field]
    # All or nothing: the good fields sent with it are not saved either.
    assert not Reseller.objects.get(pk=reseller.pk).brand_product_name


def test_a_colour_just_under_the_rule_does_not_read_as_meeting_it(reseller):
    with pytest.raises(ValidationError) as caught:
        brand_update(tenant=reseller, actor=None, primary_colour="#777777")
    assert "#777777 has 4.47:1" in errors_of(caught.value)["primary_colour"]
    assert brand_update(tenant=reseller, actor=None, primary_colour="#767676") == [
        "primary_colour"]


def test_bad_values_are_refused_each_naming_its_field(reseller):
    with pytest.raises(ValidationError) as caught:
        brand_update(tenant=reseller, actor=None, product_name="x" * 41,
                     primary_colour="#12345", support_email="help at riverside",
                     sender_name="Riverside\nBcc: everyone@example.com",
                     sender_email="nobody", host="https://portal.riverside.example/")
    errors = errors_of(caught.value)
    assert set(errors) == {"product_name", "primary_colour", "support_email", "sender_name",
                           "sender_email", "host"}
    assert "At most 40 characters" in errors["product_name"]
    assert "six hexadecimal digits" in errors["primary_colour"]
    assert "not an email address" in errors["support_email"]
    assert "no line breaks" in errors["sender_name"]
    assert "no https://, port or path" in errors["host"]


@pytest.mark.parametrize(("host", "words"), [
    ("portal", "is not a host name"),
    ("10.0.0.7", "not an IP address"),
    ("portal..agency.example", "is not a host name"),
    ("portal.agency.example:8443", "no https://, port or path"),
])
def test_a_host_must_be_a_host_name(reseller, host, words):
    with pytest.raises(ValidationError) as caught:
        brand_update(tenant=reseller, actor=None, host=host)
    assert words in errors_of(caught.value)["host"]


def test_a_host_belongs_to_one_reseller_and_never_is_the_main_address(reseller, settings):
    settings.PORTAL_PUBLIC_URL = "https://portal.example.com"
    brand_update(tenant=reseller, actor=None, host="portal.riverside.example")
    other = ResellerFactory()
    with pytest.raises(ValidationError) as caught:
        brand_update(tenant=other, actor=None, host="PORTAL.riverside.example")
    assert "Another agency already uses this address" in errors_of(caught.value)["host"]
    for main in ("portal.example.com", "admin.example.net"):
        with pytest.raises(ValidationError) as caught:
            brand_update(tenant=other, actor=None, host=main, request_host="admin.example.net")
        assert "the portal's own address" in errors_of(caught.value)["host"]
    # A reseller saving from its own address keeps it.
    assert brand_update(tenant=reseller, actor=None, host="portal.riverside.example",
                        request_host="portal.riverside.example:443") == []
    # Emptied, it is free for another.
    brand_update(tenant=reseller, actor=None, host="")
    assert Reseller.objects.get(pk=reseller.pk).brand_host is None
    assert brand_update(tenant=other, actor=None, host="portal.riverside.example") == ["host"]


def test_the_logo_is_stored_drawn_again_and_audited(reseller):
    brand_logo_set(tenant=reseller, actor=None, data=picture(), file_name="logo.png")
    logo = brand_logo_get(tenant=reseller)
    assert logo.content_type == "image/png" and (logo.width, logo.height) == (120, 40)
    brand = brand_get(tenant=reseller)
    assert brand.has_logo and brand.logo_url.endswith(f"?v={logo.hash[:16]}")
    with pytest.raises(ValidationError):
        brand_logo_set(tenant=reseller, actor=None, data=SVG_WITH_SCRIPT, file_name="x.svg")
    assert brand_logo_get(tenant=reseller).hash == logo.hash
    assert brand_logo_remove(tenant=reseller, actor=None) is True
    assert brand_logo_get(tenant=reseller) is None and not brand_get(tenant=reseller).has_logo
    assert brand_logo_remove(tenant=reseller, actor=None) is False
    assert actions(reseller) == ["brand.logo_set", "brand.logo_removed"]


def test_a_reseller_without_a_brand_shows_the_portals_own(reseller):
    brand = brand_get(tenant=reseller)
    assert brand.product_name == "Reseller portal" and brand.is_default
    assert brand.stylesheet_url == "" and brand.logo_url == ""
    assert brand.from_email == "portal@localhost" and brand.reply_to == []
    assert DEFAULT_BRAND.is_default


def test_the_sender_is_the_brands(reseller, settings):
    settings.DEFAULT_FROM_EMAIL = "Reseller portal <portal@portal.example.com>"
    brand_update(tenant=reseller, actor=None, product_name="Riverside Digital")
    # A product name alone: the agency's name at the portal's address.
    assert brand_get(tenant=reseller).from_email == (
        "Riverside Digital <portal@portal.example.com>")
    brand_update(tenant=reseller, actor=None, sender_name="Riverside, the agency",
                 sender_email="noreply@riverside.example", support_email="help@riverside.example")
    brand = brand_get(tenant=reseller)
    assert brand.from_email == '"Riverside, the agency" <noreply@riverside.example>'
    assert brand.reply_to == ["help@riverside.example"]


# -- the settings page --------------------------------------------------------------------------


def test_owners_of_the_whole_account_have_a_brand_tab(owner, reseller):
    client, _ = owner
    page = client.get(url("settings_connection", reseller)).content.decode()
    assert f'href="{url("settings_brand", reseller)}">Brand</a>' in page
    response = client.get(url("settings_brand", reseller))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="brand-preview"' in html and "brand_settings.js" in html


@pytest.mark.parametrize(("role", "limited"), [(Role.OWNER, True), (Role.MANAGER, False),
                                               (Role.VIEWER, False)])
def test_nobody_else_may_open_or_change_the_brand(member_client, reseller, role, limited):
    extra = {"limited_to": BusinessFactory(reseller=reseller)} if limited else {}
    client, _ = member_client(role, reseller=reseller, **extra)
    for name in ("settings_brand", "settings_brand_logo_remove"):
        assert client.get(url(name, reseller)).status_code == 403
        assert client.post(url(name, reseller), GOOD).status_code == 403
    logo = SimpleUploadedFile("logo.png", picture(), content_type="image/png")
    assert client.post(url("settings_brand_logo", reseller), {"logo": logo}).status_code == 403
    assert not Reseller.objects.get(pk=reseller.pk).brand_product_name


def test_a_colour_error_shows_next_to_its_field_and_keeps_everything_typed(owner, reseller):
    client, _ = owner
    response = client.post(url("settings_brand", reseller), {**GOOD, "primary_colour": "#ffcc00"})
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == ["primary_colour"]
    assert "at least 4.5:1" in form.errors["primary_colour"][0]
    html = response.content.decode()
    field = re.search(r'<div class="field has-error">.*?</div>', html, re.S).group(0)
    assert 'id="id_primary_colour"' in field and "1.5:1" in field
    for value in ('value="Riverside Digital"', 'value="#ffcc00"', 'value="#8a2be2"',
                  'value="Help@Riverside.example"', 'value="noreply@riverside.example"',
                  'value="Portal.Riverside.Example"'):
        assert value in html, value
    assert not Reseller.objects.get(pk=reseller.pk).brand_product_name


def test_a_saved_brand_shows_in_the_header_of_every_page(owner, reseller):
    client, _ = owner
    response = client.post(url("settings_brand", reseller), GOOD)
    assert response.status_code == 302
    html = client.get(url("tenant_home", reseller)).content.decode()
    assert 'class="brand"' in html and ">Riverside Digital</a>" in html
    assert ">Reseller portal</a>" not in html
    stylesheet = re.search(r'<link rel="stylesheet" href="([^"]+/brand/style\.css\?v=\w+)">',
                           html).group(1)
    css = client.get(stylesheet)
    assert css.status_code == 200 and css["Content-Type"].startswith("text/css")
    text = css.content.decode()
    assert "--brand-primary: #0b3d2e;" in text and "--accent: #8a2be2;" in text
    assert ".topbar { background: var(--brand-primary); }" in text
    assert css["Cache-Control"] == "private, max-age=31536000, immutable"
    # Saving a colour again gives the stylesheet a new address.
    client.post(url("settings_brand", reseller), {**GOOD, "accent_colour": "#1a5fb4"})
    html = client.get(url("tenant_home", reseller)).content.decode()
    assert stylesheet not in html
    assert "Saved the brand (accent colour)." in html


def test_a_logo_is_uploaded_shown_and_removed_after_confirmation(owner, reseller):
    client, _ = owner
    logo = SimpleUploadedFile("logo.png", picture(), content_type="image/png")
    response = client.post(url("settings_brand_logo", reseller), {"logo": logo})
    assert response.status_code == 302
    html = client.get(url("tenant_home", reseller)).content.decode()
    src = re.search(r'<img class="brand-logo" src="([^"]+)" alt="" width="120" height="40">',
                    html).group(1)
    served = client.get(src)
    assert served.status_code == 200
    assert served["Content-Type"] == "image/png"
    assert served["X-Content-Type-Options"] == "nosniff"
    assert served["Content-Disposition"] == 'inline; filename="logo.png"'
    assert served["Cache-Control"] == "private, max-age=31536000, immutable"
    assert served["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert served.content == brand_logo_get(tenant=reseller).data
    # Without its version, checked each time; its ETag answers a browser that has it.
    unversioned = client.get(url("brand_logo", reseller))
    assert unversioned["Cache-Control"] == "private, no-cache"
    again = client.get(src, HTTP_IF_NONE_MATCH=served["ETag"])
    assert again.status_code == 304

    confirm = client.get(url("settings_brand_logo_remove", reseller))
    assert confirm.status_code == 200 and src in confirm.content.decode()
    assert brand_logo_get(tenant=reseller) is not None  # a GET removes nothing
    assert client.post(url("settings_brand_logo_remove", reseller)).status_code == 302
    assert brand_logo_get(tenant=reseller) is None
    html = client.get(url("tenant_home", reseller)).content.decode()
    assert 'class="brand-logo"' not in html
    # Without a logo its address leads to the portal's own mark.
    assert client.get(url("brand_logo", reseller))["Location"].endswith("portal/favicon.svg")
    assert actions(reseller) == ["brand.logo_set", "brand.logo_removed"]


def test_a_refused_logo_says_why_on_the_page(owner, reseller):
    client, _ = owner
    make_brand(reseller)
    svg = SimpleUploadedFile("logo.svg", SVG_WITH_SCRIPT, content_type="image/svg+xml")
    response = client.post(url("settings_brand_logo", reseller), {"logo": svg})
    assert response.status_code == 400
    html = response.content.decode()
    assert "carries a script" in html
    # The rest of the page is there, with the saved brand in its form.
    assert 'value="Riverside Digital"' in html
    assert brand_logo_get(tenant=reseller) is None
    not_a_picture = SimpleUploadedFile("logo.png", b"GIF89a? no, just text", "image/png")
    response = client.post(url("settings_brand_logo", reseller), {"logo": not_a_picture})
    assert response.status_code == 400 and "not a PNG, JPEG or WebP" in response.content.decode()
    assert client.post(url("settings_brand_logo", reseller), {}).status_code == 400


def test_the_brand_files_are_their_members_only_on_the_main_address(owner, reseller):
    make_brand(reseller, logo=picture())
    from django.test import Client

    for name in ("brand_logo", "brand_stylesheet"):
        anonymous = Client().get(url(name, reseller))
        assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
        stranger = Client()
        stranger.force_login(MembershipFactory(role=Role.OWNER).user)
        assert stranger.get(url(name, reseller)).status_code == 404
        client, _ = owner
        assert client.get(url(name, reseller)).status_code == 200


# -- the API ------------------------------------------------------------------------------------


def api_url(reseller, *parts):
    return reverse("api_brand_logo" if parts else "api_brand", args=[reseller.slug])


def test_the_api_reads_and_changes_the_brand(api_member, reseller):
    client, _ = api_member(Role.OWNER, reseller=reseller)
    empty = client.get(api_url(reseller)).json()
    assert empty["product_name"] == "" and empty["logo"] is None and empty["host"] == ""
    response = client.patch(api_url(reseller), GOOD, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["primary_colour"] == "#0b3d2e" and body["host"] == "portal.riverside.example"
    assert body["host_served"] is False
    assert body["stylesheet_url"].startswith(f"/t/{reseller.slug}/brand/style.css?v=")
    assert "brand.updated" in actions(reseller)
    # A partial change keeps the rest.
    client.patch(api_url(reseller), {"product_name": "Riverside"}, format="json")
    assert client.get(api_url(reseller)).json()["sender_email"] == "noreply@riverside.example"


def test_the_api_refuses_what_the_page_refuses(api_member, reseller):
    client, _ = api_member(Role.OWNER, reseller=reseller)
    response = client.patch(api_url(reseller), {"accent_colour": "#ffcc00",
                                                "host": "10.1.1.1"}, format="json")
    assert response.status_code == 400
    fields = response.json()["fields"]
    assert set(fields) == {"accent_colour", "host"}
    assert "at least 4.5:1" in fields["accent_colour"][0]
    for body, field in (({"colour": "#000000"}, "colour"), ({"logo": "x"}, "logo"),
                        ({"product_name": "x" * 41}, "product_name")):
        response = client.patch(api_url(reseller), body, format="json")
        assert response.status_code == 400 and field in response.json()["fields"], body
    assert client.patch(api_url(reseller), {}, format="json").status_code == 400
    assert not Reseller.objects.get(pk=reseller.pk).brand_product_name


def test_the_api_takes_a_logo_as_a_file(api_member, reseller):
    client, _ = api_member(Role.OWNER, reseller=reseller)
    body, content_type = multipart({"file": SimpleUploadedFile("logo.webp",
                                                               picture(kind="WEBP"))})
    response = client.put(api_url(reseller, "logo"), body, content_type=content_type)
    assert response.status_code == 200, response.content
    logo = response.json()["logo"]
    assert logo["content_type"] == "image/webp" and (logo["width"], logo["height"]) == (120, 40)
    # A token opens the API, not pages: the file is for signed-in members.
    assert client.get(logo["url"]).status_code == 302
    body, content_type = multipart({"file": SimpleUploadedFile("logo.svg", SVG_WITH_SCRIPT)})
    refused = client.put(api_url(reseller, "logo"), body, content_type=content_type)
    assert refused.status_code == 400 and "carries a script" in refused.json()["fields"]["file"][0]
    assert client.put(api_url(reseller, "logo"), {"file": "x"}, format="json").status_code == 415
    assert client.delete(api_url(reseller, "logo")).status_code == 204
    again = client.delete(api_url(reseller, "logo"))
    assert again.status_code == 409 and again.json()["code"] == "no_logo"
    assert actions(reseller) == ["brand.logo_set", "brand.logo_removed"]


@pytest.mark.parametrize(("role", "limited"), [(Role.OWNER, True), (Role.MANAGER, False),
                                               (Role.VIEWER, False)])
def test_the_api_is_for_owners_of_the_whole_account(api_member, reseller, role, limited):
    extra = {"limited_to": BusinessFactory(reseller=reseller)} if limited else {}
    client, _ = api_member(role, reseller=reseller, **extra)
    assert client.get(api_url(reseller)).status_code == 403
    assert client.patch(api_url(reseller), GOOD, format="json").status_code == 403
    assert client.delete(api_url(reseller, "logo")).status_code == 403

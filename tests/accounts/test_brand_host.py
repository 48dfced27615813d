"""A reseller's own address: its sign-in page shows its brand, its members land on its portal,
and nobody else gets in there, nor reaches another reseller through it. The main address keeps
working for everyone. Error pages show the brand of the page or the address they answer for."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.brand_services import brand_update
from accounts.models import Role
from tests.accounts.test_brand_logo import make_brand, picture
from tests.factories import DEFAULT_PASSWORD, MembershipFactory, ResellerFactory
from tests.security.test_access import inline_code

pytestmark = pytest.mark.django_db

HOST = "portal.riverside.example"
OTHER_HOST = "clients.harbour.example"
MAIN = "http://portal.example.com"


@pytest.fixture(autouse=True)
def _hosts(settings):
    settings.ALLOWED_HOSTS = ["testserver", HOST, OTHER_HOST]
    settings.PORTAL_PUBLIC_URL = MAIN


@pytest.fixture
def riverside():
    reseller = ResellerFactory(name="Riverside Agency", slug="riverside")
    return make_brand(reseller, host=HOST, logo=picture())


@pytest.fixture
def harbour():
    reseller = ResellerFactory(name="Harbour Media", slug="harbour")
    make_brand(reseller, host=OTHER_HOST, product_name="Harbour Clients",
               primary_colour="#6a1b9a", support_email="help@harbour.example")
    return reseller


def on(host: str) -> Client:
    return Client(HTTP_HOST=host, raise_request_exception=False)


def sign_in(client: Client, user, next_url: str = ""):
    data = {"username": user.email, "password": DEFAULT_PASSWORD}
    if next_url:
        data["next"] = next_url
    return client.post(reverse("login"), data)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


# -- the sign-in page ---------------------------------------------------------------------------


def test_the_sign_in_page_of_a_resellers_address_shows_its_brand(riverside, harbour):
    html = on(HOST).get(reverse("login")).content.decode()
    assert ">Riverside Digital</a>" in html and "Sign in to Riverside Digital" in html
    riverside.refresh_from_db()
    assert f'src="/t/riverside/brand/logo/?v={riverside.brand_logo_hash[:16]}"' in html
    assert 'href="/t/riverside/brand/style.css?v=' in html
    assert "mailto:help@riverside.example" in html
    assert "Harbour" not in html
    # The main address shows the portal's own.
    main = Client().get(reverse("login")).content.decode()
    assert ">Reseller portal</a>" in main and "Riverside" not in main
    assert "brand/style.css" not in main


def test_its_logo_and_stylesheet_are_public_on_its_address_only(riverside, harbour):
    visitor = on(HOST)
    logo = visitor.get(reverse("brand_logo", args=["riverside"]))
    assert logo.status_code == 200 and logo["Content-Type"] == "image/png"
    css = visitor.get(reverse("brand_stylesheet", args=["riverside"]))
    assert css.status_code == 200 and "--brand-primary: #0b3d2e;" in css.content.decode()
    # On the main address, or on another reseller's, they are not public.
    assert Client().get(reverse("brand_logo", args=["riverside"])).status_code == 302
    elsewhere = on(OTHER_HOST).get(reverse("brand_logo", args=["riverside"]))
    assert elsewhere.status_code == 403 and b"Harbour Clients" in elsewhere.content
    # Nor is anything else of the reseller.
    home = visitor.get(reverse("tenant_home", args=["riverside"]))
    assert home.status_code == 302 and "/accounts/login/" in home["Location"]


# -- who gets in ----------------------------------------------------------------------------------


def test_its_members_land_on_its_portal(riverside, harbour):
    member = MembershipFactory(reseller=riverside, role=Role.VIEWER)
    # A member of several resellers too: on this address there is one.
    MembershipFactory(reseller=harbour, user=member.user)
    client = on(HOST)
    response = sign_in(client, member.user)
    assert response.status_code == 302 and signed_in(client)
    landing = client.get(response["Location"])
    assert landing.status_code == 302 and landing["Location"] == "/t/riverside/"
    assert client.get(reverse("reseller_picker"))["Location"] == "/t/riverside/"
    page = client.get("/t/riverside/")
    assert page.status_code == 200
    html = page.content.decode()
    assert ">Riverside Digital</a>" in html
    # The menu offers no other reseller here.
    assert "/t/harbour/" not in html and "Harbour" not in html


def test_a_member_of_another_reseller_cannot_sign_in_there(riverside, harbour):
    stranger = MembershipFactory(reseller=harbour, role=Role.OWNER)
    client = on(HOST)
    response = sign_in(client, stranger.user, next_url="/t/harbour/")
    assert response.status_code == 403
    assert not signed_in(client)
    html = response.content.decode()
    assert "not a member of Riverside Digital" in html
    assert f'href="{MAIN}"' in html
    assert "Harbour" not in html


def test_someone_already_signed_in_elsewhere_is_sent_to_the_main_address(riverside, harbour):
    stranger = MembershipFactory(reseller=harbour, role=Role.OWNER)
    client = on(HOST)
    client.force_login(stranger.user)
    for path in ("/", "/t/riverside/", "/t/harbour/", reverse("profile"),
                 reverse("settings_brand", args=["harbour"])):
        response = client.get(path)
        assert response.status_code == 403, path
        html = response.content.decode()
        assert f'href="{MAIN}"' in html and "Sign out of this address" in html
        assert "Harbour Clients" not in html and "help@harbour.example" not in html
    # Signing out still works there.
    assert client.post(reverse("logout")).status_code == 302
    assert not signed_in(client)


def test_no_other_resellers_page_or_api_is_served_there(riverside, harbour):
    both = MembershipFactory(reseller=riverside, role=Role.OWNER)
    MembershipFactory(reseller=harbour, user=both.user, role=Role.OWNER)
    client = on(HOST)
    client.force_login(both.user)
    assert client.get("/t/riverside/").status_code == 200
    page = client.get("/t/harbour/")
    assert page.status_code == 403
    assert "Only Riverside Digital is served at this address" in page.content.decode()
    api = on(HOST).get(reverse("api_business_list", args=["harbour"]))
    assert api.status_code == 403 and api.json()["code"] == "wrong_host"
    assert MAIN in api.json()["message"]
    # The main address keeps working for everyone, in each reseller's own brand.
    main = Client()
    main.force_login(both.user)
    assert ">Harbour Clients</a>" in main.get("/t/harbour/").content.decode()
    assert ">Riverside Digital</a>" in main.get("/t/riverside/").content.decode()


def test_a_changed_address_takes_effect_at_once(riverside):
    member = MembershipFactory(reseller=riverside, role=Role.OWNER)
    assert ">Riverside Digital</a>" in on(HOST).get(reverse("login")).content.decode()
    brand_update(tenant=riverside, actor=member.user, host=OTHER_HOST)
    assert ">Reseller portal</a>" in on(HOST).get(reverse("login")).content.decode()
    assert ">Riverside Digital</a>" in on(OTHER_HOST).get(reverse("login")).content.decode()


# -- error pages ----------------------------------------------------------------------------------


def test_error_pages_of_a_resellers_pages_show_its_brand(riverside, settings):
    settings.DEBUG = False
    viewer = MembershipFactory(reseller=riverside, role=Role.VIEWER)
    client = Client(raise_request_exception=False)
    client.force_login(viewer.user)
    refused = client.get(reverse("settings_brand", args=["riverside"]))
    missing = client.get(reverse("business_detail", args=["riverside", 404]))
    for response, status in ((refused, 403), (missing, 404)):
        assert response.status_code == status
        html = response.content.decode()
        assert ">Riverside Digital</a>" in html and "brand/style.css" in html


def test_the_500_page_keeps_the_brand_without_asking_anything_again(riverside, settings,
                                                                    monkeypatch):
    settings.DEBUG = False
    owner = MembershipFactory(reseller=riverside, role=Role.OWNER)

    def explode(self, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr("dashboard.views.TenantHomeView.get_context_data", explode)
    client = Client(raise_request_exception=False)
    client.force_login(owner.user)
    response = client.get("/t/riverside/")
    assert response.status_code == 500
    html = response.content.decode()
    assert ">Riverside Digital</a>" in html and "mailto:help@riverside.example" in html
    assert "Something went wrong on our side" in html and owner.user.email not in html


def test_the_500_page_falls_back_to_the_portals_look_when_the_brand_cannot_be_read(
        riverside, settings, monkeypatch):
    settings.DEBUG = False
    owner = MembershipFactory(reseller=riverside, role=Role.OWNER)

    def explode(*args, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr("dashboard.views.TenantHomeView.get_context_data", explode)
    monkeypatch.setattr("accounts.brand_middleware.brand_get", explode)
    client = Client(raise_request_exception=False)
    client.force_login(owner.user)
    response = client.get("/t/riverside/")
    assert response.status_code == 500
    html = response.content.decode()
    assert ">Reseller portal</a>" in html and "Something went wrong on our side" in html


def test_a_missing_page_on_a_resellers_address_shows_its_brand(riverside, settings):
    settings.DEBUG = False
    response = on(HOST).get("/no/such/page/")
    assert response.status_code == 404
    assert ">Riverside Digital</a>" in response.content.decode()


def test_with_the_cache_down_the_address_is_still_told_apart(riverside, harbour, monkeypatch):
    class Down:
        def __getattr__(self, name):
            def fail(*args, **kwargs):
                raise ConnectionError("cache unreachable")
            return fail

    monkeypatch.setattr("accounts.brand.cache", Down())
    stranger = MembershipFactory(reseller=harbour, role=Role.OWNER)
    client = on(HOST)
    assert ">Riverside Digital</a>" in client.get(reverse("login")).content.decode()
    assert sign_in(client, stranger.user).status_code == 403 and not signed_in(client)


def test_the_page_that_sends_elsewhere_is_hardened_like_any_other(riverside, harbour):
    stranger = MembershipFactory(reseller=harbour, role=Role.OWNER)
    client = on(HOST)
    client.force_login(stranger.user)
    response = client.get("/t/riverside/")
    assert response.status_code == 403
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert not inline_code(response.content.decode())

"""Emails sent on a reseller's behalf come in its brand: from its sender, answered to its
support address, with its product name and its logo carried inside the email. A password reset
asked at a reseller's own address comes in that reseller's brand, to its members only."""

from __future__ import annotations

import re
from email import message_from_bytes

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Role
from tests.accounts.test_brand_logo import make_brand, picture
from tests.factories import MembershipFactory, ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db

HOST = "portal.riverside.example"


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.DEFAULT_FROM_EMAIL = "Reseller portal <portal@portal.example.com>"
    settings.ALLOWED_HOSTS = ["testserver", HOST]


@pytest.fixture
def riverside():
    reseller = ResellerFactory(name="Riverside Agency", slug="riverside")
    return make_brand(reseller, host=HOST, logo=picture(kind="WEBP"))


def parts(mail) -> dict[str, list]:
    """The MIME parts of a sent email, by content type."""
    found: dict[str, list] = {}
    for part in message_from_bytes(mail.message().as_bytes()).walk():
        found.setdefault(part.get_content_type(), []).append(part)
    return found


def html_of(mail) -> str:
    return next(body for body, kind in mail.alternatives if kind == "text/html")


def test_an_invitation_comes_in_the_resellers_brand(riverside, mailoutbox):
    owner = MembershipFactory(reseller=riverside, role=Role.OWNER)
    client = Client()
    client.force_login(owner.user)
    response = client.post(reverse("settings_members", args=["riverside"]),
                           {"email": "new.client@example.com", "role": Role.VIEWER})
    assert response.status_code == 302
    [mail] = mailoutbox
    assert mail.from_email == "Riverside Digital <noreply@riverside.example>"
    assert mail.reply_to == ["help@riverside.example"]
    assert mail.subject == "You have been invited to Riverside Agency on Riverside Digital"
    assert "on Riverside Digital." in mail.body and "help@riverside.example" in mail.body
    assert "reseller portal" not in mail.body.lower()
    # The link leads to the reseller's own address, which the portal serves.
    assert re.search(rf"http://{re.escape(HOST)}/accounts/reset/\S+/", mail.body)
    html = html_of(mail)
    assert "Riverside Digital" in html and "#0b3d2e" in html and 'src="cid:brand-logo"' in html
    assert f"http://{HOST}/accounts/reset/" in html
    # The logo travels inside the email, as PNG (mail readers do not all show WebP).
    mime = parts(mail)
    assert "multipart/related" in mime
    [logo] = mime["image/png"]
    assert logo["Content-ID"] == "<brand-logo>"
    assert logo.get_content_disposition() == "inline"
    assert logo.get_payload(decode=True).startswith(b"\x89PNG")


def test_without_a_brand_the_invitation_is_the_portals(mailoutbox):
    owner = MembershipFactory(role=Role.OWNER)
    client = Client()
    client.force_login(owner.user)
    client.post(reverse("settings_members", args=[owner.reseller.slug]),
                {"email": "someone@example.com", "role": Role.VIEWER})
    [mail] = mailoutbox
    assert mail.from_email == "Reseller portal <portal@portal.example.com>"
    assert mail.reply_to == []
    assert "on the reseller portal" in mail.subject
    assert "http://testserver/accounts/reset/" in mail.body
    assert "cid:brand-logo" not in html_of(mail) and "image/png" not in parts(mail)


def test_a_password_reset_at_a_resellers_address_comes_in_its_brand(riverside, mailoutbox):
    member = MembershipFactory(reseller=riverside, role=Role.VIEWER)
    response = Client(HTTP_HOST=HOST).post(reverse("password_reset"),
                                           {"email": member.user.email})
    assert response.status_code == 302
    [mail] = mailoutbox
    assert mail.to == [member.user.email]
    assert mail.from_email == "Riverside Digital <noreply@riverside.example>"
    assert mail.subject == "Choose a new password for Riverside Digital"
    assert re.search(rf"http://{re.escape(HOST)}/accounts/reset/\S+/", mail.body)
    assert 'src="cid:brand-logo"' in html_of(mail)


def test_a_password_reset_at_the_main_address_is_the_portals(riverside, mailoutbox):
    member = MembershipFactory(reseller=riverside, role=Role.VIEWER)
    Client().post(reverse("password_reset"), {"email": member.user.email})
    [mail] = mailoutbox
    assert mail.from_email == "Reseller portal <portal@portal.example.com>"
    assert mail.subject == "Choose a new password for Reseller portal"
    assert "Riverside" not in mail.body and "Riverside" not in html_of(mail)
    assert "http://testserver/accounts/reset/" in mail.body


def test_a_resellers_address_sends_no_reset_to_someone_else(riverside, mailoutbox):
    outsider = MembershipFactory(role=Role.OWNER).user
    nobody = UserFactory()
    for user in (outsider, nobody):
        response = Client(HTTP_HOST=HOST).post(reverse("password_reset"), {"email": user.email})
        # The same answer as for a member: the page tells no one which addresses are known.
        assert response.status_code == 302
    assert mailoutbox == []


def test_any_email_of_the_portal_can_be_sent_in_a_brand(riverside, mailoutbox):
    """What a later email (a scheduled report) uses: one call, the brand's sender, layout and
    logo."""
    from accounts.brand import brand_get
    from accounts.brand_emails import brand_email_send

    brand_email_send(brand=brand_get(tenant=riverside), to=["client@example.com"],
                     template="emails/password_reset", subject_template=(
                         "emails/password_reset_subject.txt"),
                     context={"email": "client@example.com", "protocol": "https",
                              "domain": HOST, "uid": "MQ", "token": "set-token"})
    [mail] = mailoutbox
    assert mail.from_email == "Riverside Digital <noreply@riverside.example>"
    assert mail.subject == "Choose a new password for Riverside Digital"
    assert f"https://{HOST}/accounts/reset/MQ/set-token/" in mail.body
    assert 'src="cid:brand-logo"' in html_of(mail) and "image/png" in parts(mail)

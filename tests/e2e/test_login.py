import pytest

from tests.factories import DEFAULT_PASSWORD, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_in_lands_on_the_resellers_dashboard(live_server, page, screenshot):
    membership = MembershipFactory()
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
    screenshot("login")
    page.get_by_label("Email").fill(membership.user.email)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**/t/{membership.reseller.slug}/")
    assert page.get_by_role("heading", name=membership.reseller.name).is_visible()


def test_a_wrong_password_says_so(live_server, page):
    membership = MembershipFactory()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Email").fill(membership.user.email)
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    assert page.get_by_role("alert").first.is_visible()
    assert "/accounts/login/" in page.url

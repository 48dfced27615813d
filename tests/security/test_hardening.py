"""The portal's hardening: the Content Security Policy, failed sign-in lockout, CSRF on every
form, request size limits, password strength, production cookies and HSTS, secrets kept out of
logs and error reports, and an audit event for every write."""

from __future__ import annotations

import logging
import re
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.tokens import default_token_generator
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.views.debug import ExceptionReporter

from accounts.models import AuditEvent, Role
from portal.logging import RedactingExceptionReporterFilter, RedactSecretsFilter
from tests.factories import DEFAULT_PASSWORD, MembershipFactory
from tests.security.payloads import valid_body
from tests.security.routes import api_operations, tenant_pages
from tests.security.test_access import api_url, inline_code, tenant_url
from tests.security.test_bad_input import isolated, request_schema

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def policy(response) -> dict[str, set[str]]:
    directives = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, *values = part.split()
        directives[name] = set(values)
    return directives


# -- Content Security Policy --------------------------------------------------------------------


def test_pages_carry_a_strict_content_security_policy(client):
    response = client.get(reverse("login"))
    csp = policy(response)
    assert csp["default-src"] == {"'self'"}
    assert csp["script-src"] == {"'self'"} and csp["style-src"] == {"'self'"}
    assert csp["img-src"] == {"'self'", "data:"}
    assert csp["frame-ancestors"] == {"'none'"}
    assert csp["form-action"] == {"'self'"}
    assert csp["object-src"] == {"'none'"}
    assert not inline_code(response.content.decode())


def test_swagger_ui_runs_under_the_strict_policy(client):
    page = client.get(reverse("api_docs"))
    assert page.status_code == 200
    assert "'unsafe-inline'" not in page["Content-Security-Policy"]
    html = page.content.decode()
    assert not inline_code(html)
    script_url = re.search(r'<script src="(/api/docs/\?[^"]*script[^"]*)"', html).group(1)
    script = client.get(script_url.replace("&amp;", "&"))
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


def test_redoc_alone_may_inject_styles_and_start_its_search_worker(client):
    page = client.get(reverse("api_redoc"))
    assert page.status_code == 200
    csp = policy(page)
    assert "'unsafe-inline'" in csp["style-src"] and "blob:" in csp["worker-src"]
    assert csp["script-src"] == {"'self'"}
    assert not INLINE_SCRIPT_OR_STYLE_ELEMENT.search(page.content.decode())
    assert "fonts.googleapis.com" not in page.content.decode()


INLINE_SCRIPT_OR_STYLE_ELEMENT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>|<style\b", re.I)


# -- failed sign-ins ----------------------------------------------------------------------------


@pytest.fixture
def member(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return MembershipFactory(role=Role.VIEWER)


def sign_in(client, email, password, address="10.0.0.1"):
    return client.post(reverse("login"), {"username": email, "password": password},
                       REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_failed_sign_ins_lock_the_address_and_user_out_with_a_clear_page(client, member,
                                                                         settings):
    email, limit = member.user.email, settings.AXES_FAILURE_LIMIT
    assert limit >= 3
    for _ in range(limit - 1):
        assert sign_in(client, email, "wrong-password").status_code == 200
    # The failure that reaches the limit is answered with the lockout page...
    assert sign_in(client, email, "wrong-password").status_code == 429
    # ...and so is the right password from then on.
    locked = sign_in(client, email, DEFAULT_PASSWORD)
    assert locked.status_code == 429
    assert not signed_in(client)
    page = locked.content.decode()
    assert "Too many failed sign-ins" in page
    assert f"after {limit} failed attempts" in page
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert f"Try again in {minutes} minutes" in page
    assert not inline_code(page)
    # Every attempt, the locked-out one included, is in the audit log; no sign-in is.
    failures = AuditEvent.unscoped.filter(action="auth.sign_in_failed",
                                          summary__email=email).count()
    assert failures == limit + 1
    assert not AuditEvent.unscoped.filter(action="auth.signed_in", actor=member.user).exists()


def test_another_spelling_of_the_address_is_the_same_user(client, member, settings):
    email = member.user.email
    spellings = [email.upper(), f" {email} ", email.capitalize(), email]
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, spellings[attempt % len(spellings)], "wrong-password")
    assert sign_in(client, email, DEFAULT_PASSWORD).status_code == 429


def test_the_lock_is_per_address_and_lifts_after_the_cool_off(client, member, settings):
    email = member.user.email
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(client, email, "wrong-password")
    # From another address the same user signs in (and the sign-in is audited).
    elsewhere = Client()
    assert sign_in(elsewhere, email, DEFAULT_PASSWORD, address="10.0.0.2").status_code == 302
    assert signed_in(elsewhere)
    assert AuditEvent.unscoped.filter(action="auth.signed_in", actor=member.user).exists()
    # Once the cool-off has passed, the locked address may try again.
    assert sign_in(client, email, DEFAULT_PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.first().attempt_time
        - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert sign_in(client, email, DEFAULT_PASSWORD).status_code == 302
    assert signed_in(client)


def test_behind_the_proxy_each_client_address_is_locked_on_its_own(client, member, settings):
    settings.BEHIND_TLS_PROXY = True
    email = member.user.email
    proxy = "10.0.0.9"
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": email, "password": "wrong-password"},
                    REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="198.51.100.7, 203.0.113.5")
    locked = client.post(reverse("login"), {"username": email, "password": DEFAULT_PASSWORD},
                         REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert locked.status_code == 429
    # Another client behind the same proxy is not locked out with the first.
    other = Client()
    response = other.post(reverse("login"), {"username": email, "password": DEFAULT_PASSWORD},
                          REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.6")
    assert response.status_code == 302 and signed_in(other)


def test_without_a_proxy_a_forged_forwarded_address_changes_nothing(client, member, settings):
    settings.BEHIND_TLS_PROXY = False
    email = member.user.email
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": email, "password": "wrong-password"},
                    REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"198.51.100.{attempt}")
    forged = client.post(reverse("login"), {"username": email, "password": DEFAULT_PASSWORD},
                         REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert forged.status_code == 429


def test_a_successful_sign_in_resets_the_count(client, member, settings):
    email = member.user.email
    for _ in range(2):
        for _ in range(settings.AXES_FAILURE_LIMIT - 1):
            sign_in(client, email, "wrong-password")
        assert sign_in(client, email, DEFAULT_PASSWORD).status_code == 302
        client.post(reverse("logout"))


def test_admin_sign_in_is_throttled_too(client, member, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(reverse("admin:login"), {"username": member.user.email, "password": "no"},
                    REMOTE_ADDR="10.0.0.3")
    response = client.post(reverse("admin:login"), {"username": member.user.email,
                                                    "password": DEFAULT_PASSWORD},
                           REMOTE_ADDR="10.0.0.3")
    assert response.status_code == 429


# -- CSRF ---------------------------------------------------------------------------------------


def test_every_post_form_in_the_templates_has_a_csrf_token():
    missing = []
    for template in ROOT.glob("**/templates/**/*.html"):
        if ".venv" in template.parts:
            continue
        text = template.read_text()
        for form in re.finditer(r"<form\b[^>]*>(.*?)</form>", text, re.S | re.I):
            opening = form.group(0)[:form.group(0).index(">") + 1]
            if re.search(r'method=["\']?post', opening, re.I) and (
                    "{% csrf_token %}" not in form.group(1)):
                missing.append(f"{template.relative_to(ROOT)}: {opening[:60]}")
    assert not missing, missing


@pytest.mark.parametrize("route", tenant_pages(), ids=lambda r: r.name)
def test_posts_without_a_csrf_token_are_refused(route, world):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(world["a"].members[Role.OWNER].user)
    response = browser.post(tenant_url(route, world), {"anything": "1"})
    assert response.status_code == 403
    assert b"CSRF" in response.content


def test_sign_in_without_a_csrf_token_is_refused(member):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(reverse("login"), {"username": member.user.email,
                                               "password": DEFAULT_PASSWORD})
    assert response.status_code == 403
    assert "_auth_user_id" not in browser.session


def test_the_api_needs_csrf_with_a_session_but_not_with_a_token(world, api):
    url = reverse("api_sync_run_list", args=[world["a"].slug])
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(world["a"].members[Role.OWNER].user)
    refused = browser.post(url, {}, content_type="application/json")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["message"]
    token_client = api("a", Role.OWNER)
    token_client.handler.enforce_csrf_checks = True
    accepted = isolated(lambda: token_client.post(url, {}, format="json"))
    assert accepted.status_code == 202


# -- request size -------------------------------------------------------------------------------


@pytest.fixture
def small_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 50_000
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 200
    return 50_000


def test_a_form_body_over_the_limit_is_refused(world, ui, small_limit):
    owner = ui("a", Role.OWNER)
    url = reverse("custom_field_list", args=[world["a"].slug])
    too_big = owner.post(url, {"field_name": "x" * (small_limit + 1), "type": "TEXT"})
    assert too_big.status_code in {400, 413}
    too_many = owner.post(url, {f"f{i}": "1" for i in range(300)})
    assert too_many.status_code in {400, 413}
    assert sign_in(Client(), "a@example.com", "p" * (small_limit + 1)).status_code in {400, 413}


def test_an_api_body_over_the_limit_is_refused(world, api, small_limit):
    url = reverse("api_custom_field_list", args=[world["a"].slug])
    body = {"field_name": "x" * (small_limit + 1), "type": "TEXT"}
    response = api("a", Role.OWNER).post(url, body, format="json")
    assert response.status_code == 413, response.status_code
    assert response.json()["code"] == "too_large"
    assert str(small_limit) in response.json()["message"]
    too_many = api("a", Role.OWNER).post(url, {f"f{i}": "1" for i in range(300)})
    assert too_many.status_code == 400 and too_many.json()["message"]


# -- passwords ----------------------------------------------------------------------------------

WEAK_PASSWORDS = ["short1", "1234567890123", "password123", "qwertyuiop"]


def test_password_change_refuses_weak_passwords(member):
    browser = Client()
    browser.force_login(member.user)
    for weak in WEAK_PASSWORDS + [member.user.email.split("@")[0] + "2026"]:
        response = browser.post(reverse("password_change"), {
            "old_password": DEFAULT_PASSWORD, "new_password1": weak, "new_password2": weak})
        assert response.status_code == 200, weak
        assert response.context["form"].errors.get("new_password2"), weak
    member.user.refresh_from_db()
    assert member.user.check_password(DEFAULT_PASSWORD)


def test_setting_a_password_from_an_invitation_or_reset_refuses_weak_ones(member):
    """Invited members choose their password on the reset page; weak ones are refused."""
    browser = Client()
    uid = urlsafe_base64_encode(force_bytes(member.user.pk))
    token = default_token_generator.make_token(member.user)
    form_url = browser.get(reverse("password_reset_confirm", args=[uid, token]))["Location"]
    for weak in WEAK_PASSWORDS:
        response = browser.post(form_url, {"new_password1": weak, "new_password2": weak})
        assert response.status_code == 200, weak
        assert response.context["form"].errors, weak
    strong = "a-long-and-unusual-passphrase-42"
    response = browser.post(form_url, {"new_password1": strong, "new_password2": strong})
    assert response.status_code == 302


# -- production settings ------------------------------------------------------------------------


def test_production_uses_secure_cookies_hsts_and_the_lockout():
    from tests.test_settings import PRODUCTION_ENV, run_manage

    probe = ("from django.conf import settings as s; import json; print(json.dumps({"
             "'session': s.SESSION_COOKIE_SECURE, 'csrf': s.CSRF_COOKIE_SECURE, "
             "'httponly': s.SESSION_COOKIE_HTTPONLY, 'hsts': s.SECURE_HSTS_SECONDS, "
             "'ssl': s.SECURE_SSL_REDIRECT, 'axes': s.AXES_ENABLED, "
             "'backend': s.AUTHENTICATION_BACKENDS[0], 'csp': 'csp.middleware.CSPMiddleware' "
             "in s.MIDDLEWARE}))")
    result = run_manage("shell", "-c", probe, extra_env=PRODUCTION_ENV)
    import json

    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values == {"session": True, "csrf": True, "httponly": True, "hsts": 31_536_000,
                      "ssl": True, "axes": True,
                      "backend": "axes.backends.AxesStandaloneBackend", "csp": True}


# -- secrets in logs and error reports ----------------------------------------------------------


def test_log_lines_and_tracebacks_have_keys_and_tokens_redacted():
    secret_token = "rpt_" + "Q" * 43
    lines = [f"calling with x-api-key: SECRETKEY1234 and {secret_token}",
             "GET /accounts?api_key=SECRETKEY1234&x=1",
             "{'Authorization': 'Bearer SECRETKEY1234'}",
             '{"api_key": "SECRETKEY1234"}']
    redacting = RedactSecretsFilter()
    for line in lines:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "%s", (line,), None)
        redacting.filter(record)
        assert "SECRETKEY1234" not in record.getMessage() and "QQQQ" not in record.getMessage()
    try:
        raise RuntimeError(f"provider refused {secret_token}")
    except RuntimeError:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "boom", (), sys.exc_info())
    redacting.filter(record)
    text = logging.Formatter().format(record)
    assert "RuntimeError" in text and "QQQQ" not in text


def test_error_reports_hide_the_key_and_tokens(settings):
    settings.DEBUG = False
    settings.DEFAULT_EXCEPTION_REPORTER_FILTER = (
        "portal.logging.RedactingExceptionReporterFilter")
    # Built at run time: the report quotes this file's source lines, which must not match.
    key, token = "-".join(["provider-key", "SECRET", "98765"]), "rpt_" + "Z" * 43
    request = RequestFactory().post("/t/x/settings/", {"api_key": key, "note": token},
                                    HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_X_API_KEY=key)

    def handle(api_key, plaintext):
        raise ValueError("the provider said no")

    try:
        handle(key, token)
    except ValueError:
        exc_info = sys.exc_info()
    reporter = ExceptionReporter(request, *exc_info)
    assert isinstance(reporter.filter, RedactingExceptionReporterFilter)
    for text in (reporter.get_traceback_text(), reporter.get_traceback_html()):
        assert "the provider said no" in text
        assert "SECRET-98765" not in text and "ZZZZ" not in text


# -- an audit event for every write -------------------------------------------------------------


WRITES = [op for op in api_operations() if op[0] != "GET"]
# POSTs that change nothing of the tenant's own, with the reason.
NOT_WRITES = {
    "/api/v1/t/{slug}/businesses/{remote_id}/categories/fetch/":
        "copies the provider's reference category lists into the mirror, as a sync does",
}


@pytest.mark.parametrize("op", WRITES, ids=lambda op: f"{op[0]} {op[1]}")
def test_every_accepted_api_write_is_audited(op, world, api):
    method, path, operation = op
    if path in NOT_WRITES:
        pytest.skip(NOT_WRITES[path])
    url, _ = api_url(path, world)
    node = request_schema(operation)
    body = valid_body(node) if node else {}
    before = AuditEvent.unscoped.filter(reseller=world["a"].reseller).count()
    response = getattr(api("a", Role.OWNER), method.lower())(url, body, format="json")
    if response.status_code >= 300:
        pytest.skip(f"not accepted here ({response.status_code}): nothing written to audit")
    after = AuditEvent.unscoped.filter(reseller=world["a"].reseller).count()
    assert after > before, f"{method} {path} answered {response.status_code} without an audit"

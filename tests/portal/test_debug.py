"""DEBUG's technical 500 page shows settings, request.META (the whole environment under
runserver) and the traceback's variables: the passwords inside URLs must not be among them."""

from __future__ import annotations

import os
import sys

import pytest
from django.test import RequestFactory, override_settings
from django.views.debug import get_default_exception_reporter_filter, technical_500_response

from portal.logging import RedactingExceptionReporterFilter, mask_url_passwords

# Built at run time: the page quotes this file's source lines, which must not be what matches.
DB_PASSWORD = "hunter2" + "secret"
MAIL_PASSWORD = "mailpass" + "123"
REDIS_PASSWORD = "redis" + "pw987"
BROKER_PASSWORDS = ("amqp" + "one111", "amqp" + "two222")
SECRETS = (DB_PASSWORD, MAIL_PASSWORD, REDIS_PASSWORD, *BROKER_PASSWORDS)

DATABASE_URL = f"postgres://u:{DB_PASSWORD}@db/x"
EMAIL_URL = f"smtp://u:{MAIL_PASSWORD}@mail/"
REDIS_URL = f"redis://:{REDIS_PASSWORD}@cache:6379/0"
BROKER_URL = f"amqp://u:{BROKER_PASSWORDS[0]}@h1//;amqp://u:{BROKER_PASSWORDS[1]}@h2//"
# What must still be shown of each: everything but the password.
SHOWN = ("postgres://u:", "@db/x", "smtp://u:", "@mail/", "redis://:", "@cache:6379/0",
         "@h1//;amqp://u:", "@h2//")


def raise_while_holding_urls(dsn: str, options: dict) -> None:
    raise RuntimeError("the database went away")


def render_500(accept: str) -> str:
    # Under runserver the WSGI environ, and so request.META, is a copy of the environment.
    request = RequestFactory().get("/t/x/boom/", HTTP_ACCEPT=accept, **os.environ)
    try:
        raise_while_holding_urls(DATABASE_URL, {"broker": [BROKER_URL], "cache": (REDIS_URL,)})
    except RuntimeError:
        response = technical_500_response(request, *sys.exc_info())
    return response.content.decode()


@pytest.fixture(autouse=True)
def _project_filter():
    # Django caches the filter for the process; another test may have cached another one.
    get_default_exception_reporter_filter.cache_clear()
    yield
    get_default_exception_reporter_filter.cache_clear()


@pytest.fixture
def urls_everywhere(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", DATABASE_URL)
    monkeypatch.setenv("EMAIL_URL", EMAIL_URL)
    with override_settings(
        DEBUG=True,
        DATABASE_URL=DATABASE_URL,
        CELERY_BROKER_URL=BROKER_URL,
        CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                            "LOCATION": "x"},
                "shared": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                           "LOCATION": [REDIS_URL]}},
        SERVICE_ENDPOINTS={"mail": [{"url": EMAIL_URL}]},
    ):
        yield


def test_the_project_uses_the_filter():
    assert isinstance(get_default_exception_reporter_filter(), RedactingExceptionReporterFilter)


# The HTML page shows the frames' variables too; the text one shows settings and META only.
@pytest.mark.parametrize(("accept", "places"), [("text/html", 3), ("text/plain", 2)])
def test_the_technical_500_page_hides_url_passwords_and_shows_the_rest(urls_everywhere, accept,
                                                                       places):
    page = render_500(accept)

    assert "the database went away" in page
    for secret in SECRETS:
        assert secret not in page
    for part in SHOWN:
        assert part in page, part
    assert page.count("@db/x") >= places


@pytest.mark.parametrize(("text", "expected"), [
    ("postgres://u:pw@db/x", "postgres://u:***@db/x"),
    ("redis://:pw@cache:6379/0", "redis://:***@cache:6379/0"),
    ("postgres://u:p@ss:w/rd@db:5432/x?sslmode=require",
     "postgres://u:***@db:5432/x?sslmode=require"),
    ("smtp+tls://u%40x:p%3Aw@mail:587/?ssl=1", "smtp+tls://u%40x:***@mail:587/?ssl=1"),
    ("a=amqp://u:one@h1;amqp://u:two@h2//", "a=amqp://u:***@h1;amqp://u:***@h2//"),
    ("DSN 'postgres://u:pw@db/x' failed", "DSN 'postgres://u:***@db/x' failed"),
    # No credentials, or a user name only: nothing to hide.
    ("https://example.com/a?b=c@d", "https://example.com/a?b=c@d"),
    ("postgres://u@db/x", "postgres://u@db/x"),
    ("https://example.com/path:x@y", "https://example.com/path:x@y"),
    ("sqlite:////data/portal.sqlite3", "sqlite:////data/portal.sqlite3"),
    ("u:pw@host", "u:pw@host"),
])
def test_mask_url_passwords(text, expected):
    assert mask_url_passwords(text, "***") == expected

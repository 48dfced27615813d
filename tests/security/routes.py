"""Every URL of the portal, sorted into what the security suite checks and how.

Patterns come from the URL conf and operations from the OpenAPI schema, at collection time, so
a new page or endpoint is checked without anyone adding it here. A pattern that falls in no
group fails `test_every_url_pattern_is_covered_or_public` until it is sorted.
"""

from __future__ import annotations

import functools
import re

from drf_spectacular.generators import SchemaGenerator

from tests.security.world import Route, url_routes

# Reachable without signing in, by design: each with the reason.
PUBLIC = {
    "login": "the sign-in page itself (throttled by django-axes)",
    "logout": "signing out needs no session; it only ends one (POST)",
    "password_reset": "asking for a reset link must work signed out",
    "password_reset_done": "static confirmation after asking for a reset link",
    "password_reset_confirm": "reached from the emailed link; the signed token is the check",
    "password_reset_complete": "static confirmation after a reset",
    "api_schema": "the API's OpenAPI document: no tenant data",
    "api_docs": "Swagger UI over the OpenAPI document: no tenant data",
    "api_redoc": "Redoc over the OpenAPI document: no tenant data",
    "admin:login": "Django admin's sign-in page",
    "admin:logout": "Django admin's sign-out",
}

# Left out of this suite entirely, by route prefix, with the reason.
EXCLUDED_PREFIXES = {
    "sandbox/": "the embedded fake provider, not the portal; it has its own contract tests "
                "(tests/contract/, tests/sandbox/) and is off in production",
    "hooks/": "the provider's webhook receiver (HTTP Basic); checked by "
              "test_webhook_receiver_refuses_wrong_credentials when present",
}

# Pages for signed-in users that belong to no tenant.
SIGNED_IN_PAGES = {"home", "reseller_picker", "password_change", "password_change_done",
                   "profile"}


@functools.cache
def routes() -> tuple[Route, ...]:
    return tuple(url_routes())


def excluded_reason(route: Route) -> str | None:
    for prefix, reason in EXCLUDED_PREFIXES.items():
        if route.route.startswith(prefix):
            return reason
    return None


def route_key(route: Route) -> str:
    return f"admin:{route.name}" if route.route.startswith("admin/") else route.name


def tenant_pages() -> list[Route]:
    return [r for r in routes() if r.is_tenant_page]


ADMIN_KWARGS = {"object_id": "1", "app_label": "accounts", "content_type_id": "1",
                "url": "nothing-here/", "id": "1"}


def admin_url(route: Route) -> str:
    """An address of an admin pattern (some have no name to reverse)."""
    path = route.route
    for name in route.kwargs:
        path = re.sub(rf"<(?:\w+:)?{name}>|\(\?P<{name}>[^)]*\)", ADMIN_KWARGS[name], path)
    return "/" + path.strip("^$").replace("^", "").replace("$", "")


def admin_routes() -> list[Route]:
    return [r for r in routes()
            if r.route.startswith("admin/") and route_key(r) not in PUBLIC]


@functools.cache
def api_operations() -> tuple[tuple[str, str, dict], ...]:
    """(method, path template, operation) of every operation of the OpenAPI schema."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                operations.append((method.upper(), path, operation))
    return tuple(operations)

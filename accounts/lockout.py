"""Failed sign-in throttling (django-axes): who an attempt counts against, and the lockout page."""

from __future__ import annotations

import math

from axes.helpers import get_cool_off
from django.conf import settings
from django.shortcuts import render


def lockout_username(request, credentials: dict | None) -> str:
    """The attempted email address, as the sign-in form compares it: `Ann@Example.com` and
    `ann@example.com ` are one user, so varying the spelling does not buy more attempts."""
    field = settings.AXES_USERNAME_FORM_FIELD
    if credentials:
        attempted = credentials.get(field)
    else:
        data = getattr(request, "data", None) or request.POST
        attempted = data.get(field)
    return str(attempted or "").strip().lower()[:254]


def client_address(request) -> str:
    """The address an attempt counts against.

    Behind the portal's TLS proxy, the last X-Forwarded-For entry, which that proxy appended
    (earlier entries come from the client and could name anyone); otherwise the socket's peer,
    never a header a client could forge.
    """
    if settings.BEHIND_TLS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last[:45]
    return request.META.get("REMOTE_ADDR", "")


def lockout_response(request, original_response=None, credentials=None):
    """A page that says what happened and for how long, with 429 Too Many Requests."""
    cool_off = get_cool_off(request)
    minutes = math.ceil(cool_off.total_seconds() / 60) if cool_off else None
    context = {"cooloff_minutes": minutes, "failure_limit": settings.AXES_FAILURE_LIMIT}
    return render(request, "registration/lockout.html", context,
                  status=settings.AXES_HTTP_RESPONSE_CODE)

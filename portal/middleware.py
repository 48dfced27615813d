"""Request plumbing that knows no app."""

from __future__ import annotations

import functools
import zoneinfo

from django.utils import timezone


@functools.lru_cache(maxsize=64)
def _zone(name: str) -> zoneinfo.ZoneInfo | None:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


class MemberTimeZoneMiddleware:
    """Pages show dates in the signed-in member's own zone (`time_zone` on the user; blank,
    or a zone this machine does not know, is the portal's TIME_ZONE).

    The API keeps the portal's zone: its tokens are read after the middleware, so a session
    and a token of the same member would otherwise get the same moments with other offsets.
    Day filters (`__date`) follow the active zone too, so a page's "from" and "to" are the
    member's days, as the dates shown beside them are.
    """

    # The API (see above) and the embedded sandbox, which speaks for the provider and has no
    # members: it must not even look the user up (it also runs without the portal's apps).
    OWN_ZONE_PREFIXES = ("/api/", "/sandbox/")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = None
        user = getattr(request, "user", None)
        if not request.path_info.startswith(self.OWN_ZONE_PREFIXES) and user is not None \
                and user.is_authenticated:
            name = getattr(user, "time_zone", "")
            zone = _zone(name) if name else None
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        try:
            return self.get_response(request)
        finally:
            # A worker thread serves the next request with whatever was left active.
            timezone.deactivate()

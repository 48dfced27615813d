"""Error handlers: the portal's own pages for people, the API's error shape for programs.

DRF answers errors raised inside API views itself; these handlers cover what reaches Django's
handlers instead (an /api/ path that matches no URL, an unexpected exception), so that an API
client never has to parse an HTML page.
"""

from __future__ import annotations

import sys

from django.http import HttpResponse, HttpResponseForbidden, HttpResponseServerError, JsonResponse
from django.template import loader
from django.views import defaults
from django.views.decorators.csrf import requires_csrf_token

from portal.exceptions import AccessRefused

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


def _api_error(status: int, code: str, message: str) -> JsonResponse:
    # The shape of every API error (portal.api.errors), so clients handle these the same way.
    return JsonResponse({"code": code, "message": message, "fields": {}}, status=status)


def refusal_message(exception: BaseException | None) -> str:
    """The reason given with a refusal the portal wrote for its members (`AccessRefused`), else
    ''. Django's and other packages' messages were never meant for a reader."""
    if isinstance(exception, AccessRefused):
        return str(exception).strip()
    return ""


def bad_request(request, exception, template_name="400.html"):
    if _is_api(request):
        return _api_error(400, "bad_request", "The request could not be understood.")
    return defaults.bad_request(request, exception, template_name)


@requires_csrf_token  # the page's sign-out form needs a token even when no view ran
def permission_denied(request, exception, template_name="403.html"):
    message = refusal_message(exception)
    if _is_api(request):
        return _api_error(403, "permission_denied",
                          message or "You do not have permission to perform this action.")
    template = loader.get_template(template_name)
    return HttpResponseForbidden(template.render({"exception": message}, request))


def page_not_found(request, exception, template_name="404.html"):
    if _is_api(request):
        return _api_error(404, "not_found", "Not found.")
    return defaults.page_not_found(request, exception, template_name)


# A database that does not answer (restarting, failing over) is a moment, not a fault: the
# request is answered 503 with when to try again, never 500.
DATABASE_UNAVAILABLE_RETRY_SECONDS = 5


def _database_unavailable(exception: BaseException | None) -> bool:
    from django.db import InterfaceError, OperationalError

    return isinstance(exception, OperationalError | InterfaceError)


def server_error(request, template_name="500.html"):
    # Django calls this handler while it handles the exception, which is still current here.
    if _database_unavailable(sys.exc_info()[1]):
        return service_unavailable(request)
    if _is_api(request):
        return _api_error(500, "server_error", "Something went wrong on our side.")
    # Django's handler renders without the request: nothing that may have failed (the
    # database, a context processor) is needed to show the page. The brand is the one value
    # read before the failure (`request.brand`, a plain value the accounts middleware leaves
    # on every request), so the page keeps the reseller's look without asking for anything.
    brand = getattr(request, "brand", None)
    if brand is None:
        return defaults.server_error(request, template_name)
    try:
        return HttpResponseServerError(loader.get_template(template_name).render({"brand": brand}))
    except Exception:
        return defaults.server_error(request, template_name)


def service_unavailable(request):
    """503 with Retry-After: the database does not answer for a moment."""
    seconds = DATABASE_UNAVAILABLE_RETRY_SECONDS
    if _is_api(request):
        response = _api_error(503, "unavailable", "The service cannot answer for a moment (its "
                              f"database is restarting); try again in {seconds} seconds.")
    else:
        brand = getattr(request, "brand", None)
        try:
            body = loader.get_template("503.html").render({"brand": brand, "seconds": seconds})
        except Exception:  # noqa: BLE001 - the plainest page rather than none
            body = "<h1>Service unavailable</h1><p>Try again in a few seconds.</p>"
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(seconds)
    return response

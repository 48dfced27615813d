import datetime as dt
import re
from urllib.parse import urlsplit

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html

register = template.Library()


@register.simple_tag(takes_context=True)
def querystring_with(context, **changes):
    """The current query string with some parameters replaced (None removes one)."""
    query = context["request"].GET.copy()
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = value
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else "?"


# Browsers drop tabs and newlines inside a URL and C0 controls around it before they read the
# scheme, so "java\tscript:" is a javascript: URL to them: a URL with any of these is refused.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@register.filter
def http_url(value) -> str:
    """The URL if it is an http(s) URL with a host, else "".

    For URLs the provider sent (listing site links, media) before they go into href or src:
    a javascript: or data: URL there would run or show whatever the provider's data says,
    with only the CSP in the way. The template shows the text without a link instead.
    """
    url = str(value or "").strip()
    if not url or _CONTROL.search(url):
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        return ""
    return url


# The one way a page writes a moment or a day (settings.DATETIME_FORMAT and DATE_FORMAT say the
# same for Django's own rendering): "Nov 23, 2026, 19:20 CET" in the member's zone, which the
# middleware activates, named beside it, since members of one agency sit in different zones.
WHEN_FORMAT = "M j, Y, H:i T"
WHEN_SECONDS_FORMAT = "M j, Y, H:i:s T"
DAY_FORMAT = "M j, Y"


@register.filter
def when(value, precision: str = ""):
    """A moment as `<time datetime="ISO">Nov 23, 2026, 19:20 CET</time>` in the active zone;
    `|when:"seconds"` adds the seconds (a log where several lines share a minute). A date
    without a time goes to `day`; nothing gives "" (so `|default:"—"` works); any other value
    is shown as it is, escaped, rather than lost."""
    if value in (None, ""):
        return ""
    if not isinstance(value, dt.datetime):
        return day(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_default_timezone())
    local = timezone.localtime(value)
    text = date_format(local, WHEN_SECONDS_FORMAT if precision == "seconds" else WHEN_FORMAT)
    return format_html('<time datetime="{}" title="{}">{}</time>', local.isoformat(),
                       f"Time zone: {timezone.get_current_timezone_name()}", text)


@register.filter
def day(value):
    """A day as `<time datetime="2026-11-23">Nov 23, 2026</time>`; a moment gives its day in
    the active zone."""
    if value in (None, ""):
        return ""
    if isinstance(value, dt.datetime):
        if timezone.is_aware(value):
            value = timezone.localtime(value)
        value = value.date()
    if not isinstance(value, dt.date):
        return format_html("{}", value)
    return format_html('<time datetime="{}">{}</time>', value.isoformat(),
                       date_format(value, DAY_FORMAT))

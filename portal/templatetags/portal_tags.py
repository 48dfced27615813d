import re
from urllib.parse import urlsplit

from django import template

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

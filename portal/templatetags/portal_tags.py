from django import template
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()


@register.simple_tag(takes_context=True)
def nav_link(context, url_name: str, label: str, *url_args, section: str = ""):
    """A navigation link, marked current when the page's URL name starts with `section`."""
    request = context["request"]
    current = getattr(request.resolver_match, "url_name", "") or ""
    prefixes = (section or url_name).split(",")
    is_current = any(current.startswith(prefix) for prefix in prefixes)
    href = reverse(url_name, args=url_args)
    if is_current:
        return format_html('<a href="{}" aria-current="page">{}</a>', href, label)
    return format_html('<a href="{}">{}</a>', href, label)


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

"""Template tags that ask the access policy: links and buttons a member may use."""

from django import template
from django.urls import reverse
from django.utils.html import format_html

from accounts import access
from accounts.business_types import view_business_types
from accounts.models import Business

register = template.Library()


@register.simple_tag(takes_context=True)
def allowed(context, url_name: str, write: bool = False) -> bool:
    """Whether the member of this page may open `url_name` (or change through it, with
    write=True): the access policy's answer, for buttons and links."""
    return access.allows(context.get("membership"), url_name, write=write)


@register.simple_tag(takes_context=True)
def nav_link(context, url_name: str, label: str, *url_args, section: str = ""):
    """A navigation link, marked current when the page's URL name starts with `section`;
    nothing at all when the access policy would refuse the member the page."""
    if context.get("membership") is not None and not allowed(context, url_name):
        return ""
    request = context["request"]
    current = getattr(request.resolver_match, "url_name", "") or ""
    prefixes = (section or url_name).split(",")
    is_current = any(current.startswith(prefix) for prefix in prefixes)
    href = reverse(url_name, args=url_args)
    if is_current:
        return format_html('<a href="{}" aria-current="page">{}</a>', href, label)
    return format_html('<a href="{}">{}</a>', href, label)


@register.simple_tag(takes_context=True)
def business_tab(context, url_name: str, label: str, business):
    """A tab of one business: nothing when its page does not apply to this type of business
    (the view's `business_types`) or the access policy refuses it."""
    args = (context["tenant"].slug, business.remote_id)
    if not view_business_types(url_name, *args).supports(business):
        return ""
    return nav_link(context, url_name, label, *args)


@register.filter
def type_label(value: str) -> str:
    """A business type in words ("Enterprise (locations)"); a custom type as the provider
    names it."""
    return dict(Business.Type.choices).get(value, value)


@register.filter
def status_label(value: str) -> str:
    """A business status in words ("Active")."""
    return dict(Business.Status.choices).get(value, value)

"""The hierarchy tree's nested list, written in Python: with a template include per node (two
per container, a hundred or more containers) rendering cost more than every query of the page.

Plain string building with every value escaped (`html.escape`, which Django's `escape` is), not
`format_html`, whose per-call overhead was most of the rest.
"""

from html import escape

from django import template
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from accounts.links import business_detail_prefix
from accounts.models import Business
from accounts.selectors import TreeNode

register = template.Library()
STATUS_LABELS = dict(Business.Status.choices)


@register.simple_tag
def business_tree(root: TreeNode, slug: str) -> SafeString:
    links = _Links(slug)
    out: list[str] = []
    _node(root, links, out, open_=True)
    return mark_safe("".join(out))  # noqa: S308 (every value was escaped on the way in)


class _Links:
    def __init__(self, slug: str):
        self.detail_prefix = business_detail_prefix(slug)
        self.locations = escape(reverse("business_list", args=[slug]) + "?type=Business")

    def detail(self, remote_id: int) -> str:
        return f"{self.detail_prefix}{int(remote_id)}/"

    def within(self, node: TreeNode, extra: str = "") -> str:
        within = f"&amp;within={int(node.remote_id)}" if node.remote_id else ""
        return f"{self.locations}{extra}{within}"


def _node(node: TreeNode, links: _Links, out: list[str], *, open_: bool) -> None:
    if not node.children:
        out.append(f'<li><div class="leaf">{_label(node, links)}</div></li>')
        return
    out.append(f'<li><details{" open" if open_ else ""}><summary>{_label(node, links)}'
               f"</summary><ul>")
    for child in node.children:
        _node(child, links, out, open_=False)
    out.append("</ul></details></li>")


def _label(node: TreeNode, links: _Links) -> str:
    name = f"<strong>{escape(node.name)}</strong>"
    if node.remote_id:
        name = f'<a href="{links.detail(node.remote_id)}">{name}</a>'
    parts = [name, f'<span class="badge">{escape(str(node.type_label))}</span>']
    if node.status and node.status != "active":
        status = STATUS_LABELS.get(node.status, node.status)
        parts.append(f'<span class="badge info">{escape(status)}</span>')
    if node.locations:
        parts.append(f'<a class="count" href="{links.within(node)}">{node.locations} '
                     f"location{pluralize(node.locations)}</a>")
    else:
        parts.append('<span class="count muted">no locations</span>')
    if node.direct_locations and node.children:
        parts.append(f'<span class="muted">({node.direct_locations} directly)</span>')
    if node.needs_action:
        parts.append(f'<a class="badge warn" href="{links.within(node, "&amp;needs_action=true")}">'
                     f'{node.needs_action} need{pluralize(node.needs_action, "s,")} action</a>')
    return f'<span class="node">{" ".join(parts)}</span>'

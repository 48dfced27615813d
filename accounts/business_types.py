"""Which types of business a page or an operation of one business applies to.

The provider keeps a listing, its status report, media, hierarchy levels and (as the portal
asks for them) review counts per location: asked for a reseller or an enterprise it refuses
(1043 "must be an SMB or an enterprise sub-account", or 1011 when a list of locations names
one). So each such page and API view declares what it supports, in one line:

    business_types = locations_only("Photos and videos")

`BusinessTabMixin` and `BusinessAPIMixin` refuse the other types before anything is asked of
the provider (a page that says what applies instead; a 409 that names the rule), and the
business tabs show only the pages a business supports. A view that declares nothing supports
every type.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import NoReverseMatch, resolve, reverse

from accounts.models import Business

LOCATION_TYPES = frozenset({Business.Type.BUSINESS})


@dataclass(frozen=True)
class BusinessTypes:
    """The types a page supports (None: every type) and what the page is about, a plural noun
    phrase for the sentence that refuses the others ("Photos and videos belong to ...")."""

    types: frozenset[str] | None = None
    subject: str = ""

    def supports(self, business: Business) -> bool:
        return self.types is None or business.type in self.types


EVERY_TYPE = BusinessTypes()


def locations_only(subject: str) -> BusinessTypes:
    return BusinessTypes(types=LOCATION_TYPES, subject=subject)


def type_phrase(business: Business) -> str:
    """The business's type with its article, as a sentence says it ("an enterprise")."""
    if business.type == Business.Type.BUSINESS:
        return "a location"
    if business.type == Business.Type.RESELLER:
        return "a sub-reseller"  # every reseller row is under the tenant's own account
    if business.type in (Business.Type.ENTERPRISE_LOCATION, Business.Type.ENTERPRISE_PRODUCT):
        return "an enterprise"
    return "a group of locations"  # a custom hierarchy type


def refusal_message(business: Business, supported: BusinessTypes) -> str:
    """Why this page does not apply to the business, in words for people: the rule first."""
    return (f"{supported.subject} belong to a single location: the provider keeps them for "
            f"each location, not for a sub-reseller or an enterprise. {business.name} is "
            f"{type_phrase(business)}.")


def view_business_types(url_name: str, *args) -> BusinessTypes:
    """The declaration of the view behind `url_name` (the tabs ask it before showing a link)."""
    try:
        match = resolve(reverse(url_name, args=args))
    except NoReverseMatch:
        return EVERY_TYPE
    view = getattr(match.func, "view_class", None) or getattr(match.func, "cls", None)
    return getattr(view, "business_types", None) or EVERY_TYPE

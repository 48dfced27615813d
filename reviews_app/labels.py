"""The words people read for the provider's codes on the review pages: review sources and
survey question types. One table each, so that filters, charts and tables say the same."""

from __future__ import annotations

import re

from django.utils.translation import get_language_info

from provider.dialects import review_sources_from_wire

# Lower-case review source aliases (sourceAlias of count-by-rating, `source` of competitor
# metrics), in the neutral names the interface uses; the embedded sandbox seeds reviews under
# the same aliases.
REVIEW_SOURCE_LABELS = {
    "profile": "Business profile",
    "maps": "Maps",
    "engine": "Search engine",
    "social": "Social network",
    "provider": "Provider's own site",
    "directory": "Directories",
}

QUESTION_TYPE_LABELS = {
    "label": "Text shown to the customer",
    "radio": "Single choice",
    "checkbox": "Multiple choice",
    "textarea": "Long text",
    "text": "Short text",
    "dropdown": "Drop-down",
    "rating": "Rating",
    "matrixdropdown": "Matrix of drop-downs",
    "nps": "Net Promoter Score",
    "matrixradio": "Matrix of single choices",
}


def _words(code: str) -> str:
    """`visitType`, `visit_type` or `visit-type` as "Visit type"."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", code.strip())
    spaced = re.sub(r"[_\-\s]+", " ", spaced).strip().lower()
    return spaced[:1].upper() + spaced[1:]


def review_source_label(alias: str) -> str:
    """A source in words. The provider's own vendor names (its wire dialect) read as the
    neutral source they stand for; a source the provider adds later reads as its words."""
    if not alias:
        return "—"
    neutral = review_sources_from_wire([alias])[0]
    return REVIEW_SOURCE_LABELS.get(neutral) or _words(alias)


def question_type_label(question_type: str) -> str:
    """A question type in words; empty for a type this portal does not know (a code means
    nothing to the reader, and the answer itself still shows)."""
    return QUESTION_TYPE_LABELS.get(question_type.lower(), "") if question_type else ""


def parameter_label(key: str) -> str:
    """A survey's custom or extra parameter name (`visitType`) as words ("Visit type")."""
    return _words(key) or key


def language_label(locale: str) -> str:
    """A response's locale (`en`, `es_US`) as the language's name; the code itself when
    Django does not know it."""
    if not locale:
        return ""
    code = locale.strip().replace("_", "-").lower()
    for candidate in (code, code.split("-")[0]):
        try:
            return get_language_info(candidate)["name"]
        except KeyError:
            continue
    return locale

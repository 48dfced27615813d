"""How the API reference is written from the code: what groups an operation under, and which
text reaches API users.

Docstrings are notes for the portal's developers (they name mixins, services and attributes),
so none reaches the schema. An operation's description is its `extend_schema(description=...)`,
else its view's `api_description`; a body's description is its serializer's `api_description`;
without one, nothing. Groups (tags) come from the URL, so that every operation of one resource
is listed together whatever its view declares.
"""

from __future__ import annotations

import inspect

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from portal.api.docs import CHECKED_BEYOND_SCHEMA
from portal.api.serializers import StrictSerializer

# What a text field of a body takes, in JSON Schema's words: Django refuses the NUL character
# in any text, and a field that may not be blank refuses one that is only whitespace once
# trimmed (Python's whitespace, spelt out: JSON Schema's \s is another set).
PYTHON_SPACE = "\\t\\n\\u000b\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a" \
               "\\u2028\\u2029\\u202f\\u205f\\u3000"
ANY_TEXT = "^[^\\u0000]*$"
NOT_BLANK_TEXT = f"^[^\\u0000]*[^\\u0000{PYTHON_SPACE}][^\\u0000]*$"

# In the reference's order: each group with what API users read at its head.
TAGS: dict[str, str] = {
    "Businesses": "The account's businesses (resellers, enterprises and locations) and their "
                  "tree, as last synced from the provider.",
    "Listings": "A location's listing: the version the provider last accepted, the changes "
                "sent and what became of each, the listing status per site, and the "
                "provider's category lists.",
    "Hierarchy": "The hierarchy levels of a location (for example region and district).",
    "Media": "A business's photos and videos.",
    "Q&A": "Questions asked about a location and their answers.",
    "Reviews": "Review counts by rating, competitor metrics and the competitive ranking.",
    "Surveys": "The surveys whose responses the portal follows, and those responses.",
    "Custom fields": "The account's custom fields.",
    "AI search": "The account's AI-search configuration.",
    "Webhooks": "The account's webhook subscriptions: the provider calls these addresses when "
                "an event happens.",
    "Events": "Live updates: the events the provider delivered to the portal, and turning "
              "their delivery on or off.",
    "Bulk changes": "One change of many locations' listings (hours, descriptions, categories, "
                    "any part of the listing), rehearsed first: the dry run shows per location "
                    "what would change, or the rule it would break. Nothing is sent yet.",
    "History": "How the figures moved: one recorded day per business and per account, kept "
               "two years, as series by day, week or month.",
    "Alerts": "Your notifications of what went wrong or moved the wrong way (a rejected "
              "listing change, a late directory, a falling rating, a failed sync...), how each "
              "kind reaches you, and the account's alert rules.",
    "Sync": "Syncs of the account's data from the provider, and their progress.",
    "Changes": "Every write queued for the provider (listings, media, custom fields, "
               "hierarchy, Q&A deletions, webhooks), with its state; retry a failed one.",
    "Tokens": "Personal API tokens.",
    "Audit log": "Who did what in the account (owners only).",
    "Connection": "The provider connection (owners only): its rate limit, learned or known, "
                  "and the names it speaks on the wire.",
    "Brand": "The agency's own look (owners only): product name, logo, colours, the sender "
             "of its emails, and its own address, where the sign-in page shows the brand.",
    "Reports": "A client's report over a period (a reseller, an enterprise or a location, or "
               "the whole account): its figures, and the PDF in the agency's brand.",
    "Report schedules": "A client's report emailed as a PDF weekly or monthly, at a day and "
                        "hour of the agency's time zone; the reports sent, with their PDFs.",
}

# The resource names of a URL after /api/v1/t/{slug}/ (or after businesses/{remote_id}/).
SEGMENT_TAGS: dict[str, str] = {
    "businesses": "Businesses",
    "children": "Businesses",
    "listing": "Listings",
    "listing-status": "Listings",
    "categories": "Listings",
    "hierarchy": "Hierarchy",
    "media": "Media",
    "questions": "Q&A",
    "review-counts": "Reviews",
    "competitor-metrics": "Reviews",
    "competitive-ranking": "Reviews",
    "surveys": "Surveys",
    "survey-responses": "Surveys",
    "custom-fields": "Custom fields",
    "ai-search": "AI search",
    "subscriptions": "Webhooks",
    "events": "Events",
    "live-updates": "Events",
    "bulk-changes": "Bulk changes",
    "listing-imports": "Bulk changes",
    "history": "History",
    "notifications": "Alerts",
    "notification-preferences": "Alerts",
    "alert-rules": "Alerts",
    "late-sites": "History",
    "directory-delays": "History",
    "sync-runs": "Sync",
    "changes": "Changes",
    "tokens": "Tokens",
    "audit-events": "Audit log",
    "connection": "Connection",
    "brand": "Brand",
    "reports": "Reports",
    "report-schedules": "Report schedules",
    "sent-reports": "Report schedules",
}


def tag_for_path(path: str) -> str:
    """The group of an operation, from its URL: `/api/v1/t/{slug}/businesses/{remote_id}/media/`
    is Media, `/api/v1/t/{slug}/businesses/` Businesses. A resource missing from the table is
    named after its URL segment, never after the tenant prefix."""
    segments = [part for part in path.strip("/").split("/")
                if part and not part.startswith("{")]
    if "t" in segments[:4]:
        segments = segments[segments.index("t") + 1:]
    if len(segments) > 1 and segments[0] == "businesses":
        segments = segments[1:]  # a business's sub-resource names the group
    resource = segments[0] if segments else "businesses"
    return SEGMENT_TAGS.get(resource, resource.replace("-", " ").capitalize())


BLANK = {"type": "string", "maxLength": 0}


def _blank_allowed_text(prop: dict) -> dict:
    """drf-spectacular offers "" beside a patterned text that may be blank (`oneOf`); the
    pattern of any text takes "" already, so the text's own schema says it alone."""
    choices = prop.get("oneOf")
    if (isinstance(choices, list) and len(choices) == 2 and choices[1] == BLANK
            and choices[0].get("pattern") == ANY_TEXT):
        merged = {key: value for key, value in prop.items() if key != "oneOf"}
        return {**choices[0], **merged}
    return prop


class PortalAutoSchema(AutoSchema):
    def get_description(self) -> str:
        return inspect.cleandoc(getattr(self.view, "api_description", "") or "")

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is not None:
            # After the view's own tags (`extend_schema(tags=...)`), which would split a
            # resource over several groups.
            operation["tags"] = [tag_for_path(path)]
        return operation

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request":
            for name, prop in schema.get("properties", {}).items():
                schema["properties"][name] = _blank_allowed_text(prop)
            if isinstance(serializer, StrictSerializer):
                schema["additionalProperties"] = False  # it refuses any other field (400)
            if self.method == "PATCH":
                schema["minProperties"] = 1  # a partial update that changes nothing is refused
        description = getattr(serializer, "api_description", "")
        if description:
            schema["description"] = inspect.cleandoc(description)
        else:
            schema.pop("description", None)
        return schema

    def get_extensions(self):
        # A view's `api_checked_beyond_schema` ({method: {field: rule}}): input that fits the
        # schema and may still be refused, listed in the reference (portal.api.replies).
        extensions = dict(super().get_extensions())
        rules = getattr(self.view, "api_checked_beyond_schema", {}).get(self.method.lower())
        if rules:
            extensions[CHECKED_BEYOND_SCHEMA] = dict(rules)
        return extensions

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction == "request" and getattr(field, "allow_empty", True) is False:
            # A list or an object that may not be empty, as DRF refuses it.
            if schema.get("type") == "array":
                schema.setdefault("minItems", 1)
            elif schema.get("type") == "object":
                schema.setdefault("minProperties", 1)
        if (direction == "request" and isinstance(field, serializers.CharField)
                and schema.get("type") == "string"
                and not {"pattern", "enum", "format"} & set(schema)):
            blank_refused = not field.allow_blank and field.trim_whitespace
            schema["pattern"] = NOT_BLANK_TEXT if blank_refused else ANY_TEXT
        return schema

    def _map_response_type_hint(self, method):
        # The schema of a `get_<field>` method: its docstring is a developer's note too.
        schema = super()._map_response_type_hint(method)
        schema.pop("description", None)
        return schema


def add_tag_descriptions(result, generator, request, public):
    """Postprocessing hook: the groups in the table's order, each with its description."""
    used = {tag for operations in result.get("paths", {}).values()
            for operation in operations.values() if isinstance(operation, dict)
            for tag in operation.get("tags", [])}
    result["tags"] = [{"name": name, "description": text} for name, text in TAGS.items()
                      if name in used]
    result["tags"] += [{"name": name} for name in sorted(used - set(TAGS))]
    return result


def _nullable_as_json_schema(node):
    if isinstance(node, list):
        return [_nullable_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _nullable_as_json_schema(value) for key, value in node.items()}
    if node.pop("nullable", False):
        kind = node.get("type")
        if isinstance(kind, str):
            node["type"] = [kind, "null"]
        elif isinstance(kind, list):
            node["type"] = [*kind, *(["null"] if "null" not in kind else [])]
        else:  # a reference or a composition: null beside it
            node = {"oneOf": [node, {"type": "null"}]}
    return node


def nullable_as_json_schema(result, generator, request, public):
    """Postprocessing hook: OpenAPI 3.1 has no `nullable`; what a library still marks so (the
    paginated lists' `next`, a hand-written schema) says null the JSON Schema way, as the rest
    of the schema does, so that validators and generators read it."""
    if "components" in result:
        result["components"] = _nullable_as_json_schema(result["components"])
    result["paths"] = _nullable_as_json_schema(result.get("paths", {}))
    return result

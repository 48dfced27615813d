"""Request bodies built from the OpenAPI schema: a valid one per operation, and bad variants of
it, one field at a time."""

from __future__ import annotations

import functools

from drf_spectacular.generators import SchemaGenerator

HUGE = "x" * 100_001
SQL = "x'; DROP TABLE accounts_business; --"
HTML = '<script>alert("pwned")</script><img src=x onerror=alert(1)>'
UNKNOWN_FIELD = "unexpected_field_zq"


@functools.cache
def _schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


NULL = {"type": "null"}


def resolve_ref(node: dict) -> dict:
    """The schema a field's value has when it is not null (OpenAPI 3.1 says null beside it:
    `"type": [..., "null"]`, or `oneOf` with `{"type": "null"}`)."""
    while "$ref" in node:
        node = _schema()["components"]["schemas"][node["$ref"].split("/")[-1]]
    if "allOf" in node and len(node["allOf"]) == 1:
        return resolve_ref(node["allOf"][0])
    choices = node.get("oneOf") or node.get("anyOf")
    if choices and NULL in choices and len(choices) == 2:
        return resolve_ref(next(choice for choice in choices if choice != NULL))
    if isinstance(node.get("type"), list) and "null" in node["type"]:
        kinds = [kind for kind in node["type"] if kind != "null"]
        return {**node, "type": kinds[0] if len(kinds) == 1 else kinds}
    return node


def request_schema(operation: dict) -> dict | None:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    return resolve_ref(content["schema"]) if content else None


def valid_value(name: str, node: dict):
    node = resolve_ref(node)
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "integer":
        return max(1, node.get("minimum", 1))
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return False
    if kind == "array":
        return [valid_value(name, node.get("items", {"type": "string"}))]
    if kind == "object" or "properties" in node or "additionalProperties" in node:
        if node.get("properties"):
            return valid_body(node)
        # A free-form map: one entry that reads as a name (a level name, a business name).
        return {"name": "Valid name"}
    if "url" in name:
        return "https://media.example.com/storefront.jpg"
    if "email" in name:
        return "ops@example.com"
    return "Valid text"


def valid_body(node: dict) -> dict:
    properties = node.get("properties", {})
    return {name: valid_value(name, properties[name]) for name in node.get("required", [])}


def wrong_type(node: dict):
    """A JSON value of another type than the field's."""
    node = resolve_ref(node)
    kind = node.get("type", "string" if "enum" in node else "object")
    return {"string": {"nested": ["not", "a", "string"]}, "integer": "not-a-number",
            "number": "not-a-number", "boolean": "perhaps", "array": "not-a-list",
            "object": ["not", "an", "object"]}.get(kind, 12345)


def is_string(node: dict) -> bool:
    node = resolve_ref(node)
    return node.get("type") == "string" and "enum" not in node

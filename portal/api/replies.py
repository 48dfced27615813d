"""What every operation of the schema can answer, written into it once, after the operations
are described: the error replies that come from the API's plumbing rather than from a view
(authentication, the access policy, the throttle, the parsers, the error handler), each with
the one error body, and the 429's `Retry-After`; files also as bytes; the rules an operation
checks beyond its schema (its view's `api_checked_beyond_schema`, and a reused
`Idempotency-Key`), listed in its description.

An operation keeps what its view declared; this adds what it leaves out, by rules that hold
for any operation (a write can conflict, a body can be too large or not JSON), so that a new
operation, or a new reply of the plumbing, is described without an edit here.
"""

from __future__ import annotations

from portal.api.docs import CHECKED_BEYOND_SCHEMA, IDEMPOTENCY_KEY
from portal.api.files import OCTET_STREAM
from portal.api.schema import ANY_TEXT

# The component of `portal.api.errors.ApiErrorSerializer`, which the views' own error replies
# already bring into the schema.
ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_CONTENT = {"application/json": {"schema": ERROR_REF}}
WRITE_METHODS = {"post", "put", "patch", "delete"}

RETRY_AFTER = {
    "description": "Seconds to wait before the next request.",
    "schema": {"type": "integer", "minimum": 0},
}

# Replies every operation can give, whatever it does.
EVERY_OPERATION = {
    "401": "No token, or an unknown, expired or revoked one (`not_authenticated`, "
           "`authentication_failed`).",
    "403": "Your role, your token's role or your part of the account does not allow this "
           "(`permission_denied`); `message` says which.",
    "404": "No such reseller, or nothing of that id among what you may see (`not_found`). "
           "Another reseller's object answers the same.",
    "429": "Too many requests for this token (`throttled`): wait the seconds of `Retry-After`.",
    "500": "Something went wrong on the portal's side (`server_error`); it is logged. Try "
           "again later.",
    "503": "The portal or the provider cannot answer right now (`provider_unavailable`); try "
           "again later, after `Retry-After` when it is given.",
}
# Replies of an operation that takes input: query parameters, headers or a body.
TAKES_INPUT = {
    "400": "Invalid input (`invalid`): `fields` names each parameter or field at fault, by its "
           "dotted path, with what is wrong.",
}
# Replies of a write: it may meet the object, or a twin request, in a state that refuses it.
WRITES = {
    "409": "Not possible in the object's state right now, or a request with the same "
           "`Idempotency-Key` is still being answered; `code` and `message` say which.",
}
# Replies of an operation with a request body.
TAKES_BODY = {
    "413": "The body is over the size limit (`too_large`).",
    "415": "The body is not of a media type this operation takes (`unsupported_media_type`): "
           "send JSON (`Content-Type: application/json`), or multipart where the operation "
           "uploads a file.",
}


def _takes_input(operation: dict) -> bool:
    return "requestBody" in operation or any(
        parameter.get("in") in ("query", "header")
        for parameter in operation.get("parameters", []))


def _error_reply(description: str) -> dict:
    return {"description": description, "content": ERROR_CONTENT}


def operation_replies(method: str, operation: dict) -> dict[str, str]:
    """The plumbing's replies this operation can give: status -> description."""
    replies = dict(EVERY_OPERATION)
    if _takes_input(operation):
        replies.update(TAKES_INPUT)
    if method in WRITE_METHODS:
        replies.update(WRITES)
    if "requestBody" in operation:
        replies.update(TAKES_BODY)
    return replies


BINARY = {"type": "string", "format": "binary"}


def _text_without_nul(parameter: dict) -> None:
    """A text query parameter says what Django reads: any text but the NUL character."""
    schema = parameter.get("schema") or {}
    if (parameter.get("in") == "query" and schema.get("type") == "string"
            and not {"pattern", "enum", "format"} & set(schema)):
        schema["pattern"] = ANY_TEXT


def _file_as_bytes_too(reply: dict) -> None:
    """A file reply (PDF, CSV, Excel) is also offered as `application/octet-stream`, listed
    first: what a client asking for bytes gets (portal.api.files), and the media type client
    generators read as a file whatever the file's own type."""
    content = reply.get("content") or {}
    if content and all(entry.get("schema") == BINARY for entry in content.values()):
        reply["content"] = {OCTET_STREAM: {"schema": dict(BINARY)}, **content}


IDEMPOTENCY_RULE = "A key already used with another body (or path) is refused."


def _describe_rules_beyond_schema(operation: dict) -> None:
    rules = dict(operation.get(CHECKED_BEYOND_SCHEMA, {}))
    if any(parameter.get("name") == IDEMPOTENCY_KEY.name
           for parameter in operation.get("parameters", [])):
        rules.setdefault(IDEMPOTENCY_KEY.name, IDEMPOTENCY_RULE)
    if not rules:
        return
    operation[CHECKED_BEYOND_SCHEMA] = rules
    listed = "\n".join(f"- `{field}`: {rule}" for field, rule in rules.items())
    text = operation.get("description", "")
    operation["description"] = (f"{text}\n\n" if text else "") + (
        "Checked beyond this schema (a 400 naming the field when it fails):\n" + listed)


def document_replies(result, generator, request, public):
    """Postprocessing hook: every operation documents each reply of the plumbing it can give,
    with the error body, and the 429's `Retry-After` (and the 503's, which may carry one)."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        raise RuntimeError("No operation brought the Error component into the schema.")
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if method == "patch" and "requestBody" in operation:
                operation["requestBody"]["required"] = True  # a partial update needs a body
            responses = operation["responses"]
            for status, description in operation_replies(method, operation).items():
                responses.setdefault(status, _error_reply(description))
            for status, reply in responses.items():
                if status.startswith("2"):
                    _file_as_bytes_too(reply)
            for status in ("429", "503"):
                responses[status].setdefault("headers", {})["Retry-After"] = {
                    **RETRY_AFTER, "required": status == "429"}
            operation["responses"] = dict(sorted(responses.items()))
            _describe_rules_beyond_schema(operation)
            for parameter in operation.get("parameters", []):
                _text_without_nul(parameter)
    return result

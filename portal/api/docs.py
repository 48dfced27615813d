"""The pieces of the API's documentation every operation shares: its error answers and the
Idempotency-Key header. One set, so the schema says the same thing everywhere."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from portal.api.errors import ApiErrorSerializer

ERRORS = {code: OpenApiResponse(ApiErrorSerializer, description=text) for code, text in {
    400: "Invalid input: `fields` names the parameters at fault and what is wrong with each.",
    401: "No token, or an unknown or revoked one.",
    403: "The member's or the token's role, or the member's limit to part of the account, "
         "does not allow this; `message` says which.",
    404: "No such reseller, or nothing of that id that this member may see.",
    409: "The object is not in a state that allows this right now; `message` says why.",
    429: "Too many requests for this token; see Retry-After.",
    503: "The provider cannot answer right now; try again later.",
}.items()}
READ_ERRORS = {code: ERRORS[code] for code in (401, 403, 404, 429)}
WRITE_ERRORS = {code: ERRORS[code] for code in (400, 401, 403, 404, 429)}

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
    description="Any unique string (at most 255 characters): a retry with the same key and body "
                "answers as the first request did, without doing the work twice; the same key "
                "with another body is refused (400).")
REMOTE_ID = OpenApiParameter("remote_id", int, OpenApiParameter.PATH,
                             description="The business number.")
# drf-spectacular names a `<pk>` path parameter `id` in the schema.
PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The id of the object.")

# The operation extension that names the input this schema cannot judge alone: what depends on
# the account's data (a name already taken, a number of another business) or on several values
# together (a first day after the last). Field path (or its start) -> the rule, in words.
CHECKED_BEYOND_SCHEMA = "x-checked-beyond-schema"


def checked_beyond_schema(rules: dict[str, str]) -> dict:
    """`extend_schema(extensions=checked_beyond_schema({...}))`: input that fits the schema and
    may still be refused (400 naming the field), and why. The reference lists the rules under
    the operation's description (portal.api.replies)."""
    return {CHECKED_BEYOND_SCHEMA: rules}

"""Reading path, query, header and body values, with a 400 that names the field when one is
missing or has the wrong type. Nothing here touches the database."""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest

from sandbox.errors import bad_input, invalid_window

MAX_WINDOW = 100_000
# Ids travel as JSON numbers but are stored as signed 64-bit integers.
MAX_ID = 2**63 - 1
MAX_ID_DIGITS = 18
_ABSENT = object()


# ------------------------------------------------------------------------------ body
def raw_body(request: HttpRequest) -> bytes:
    try:
        return request.body
    except RequestDataTooBig as error:
        raise bad_input("Request body is too large") from error


def json_body(request: HttpRequest, *, required: bool = True) -> Any:
    """The decoded JSON body; None for an empty body when it is not required."""
    raw = raw_body(request)
    if not raw.strip():
        if required:
            raise bad_input("Request body is required (a JSON document)")
        return None
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise bad_input("Request body must be UTF-8 encoded JSON") from error
    except json.JSONDecodeError as error:
        raise bad_input(
            f"Malformed JSON body: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from error
    except RecursionError as error:
        raise bad_input("Malformed JSON body: nested too deeply") from error
    if has_nul(document):
        raise bad_input("Request body must not contain NUL characters")
    return document


def has_nul(value: Any) -> bool:
    """Whether a NUL character hides anywhere in a JSON value; PostgreSQL cannot store one."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(key) or has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(has_nul(item) for item in value)
    return False


def json_object(request: HttpRequest, *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object; an absent optional body reads as ``{}``."""
    body = json_body(request, required=required)
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise bad_input("Request body must be a JSON object")
    return body


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def body_int(body: dict[str, Any], name: str, default: int | None = None) -> int | None:
    value = body.get(name, _ABSENT)
    if value is _ABSENT or value is None:
        return default
    if not is_integer(value):
        raise bad_input(f"{name} must be an integer")
    return value


def body_string(body: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise bad_input(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise bad_input(f"{name} must be a string")
    if required and not value.strip():
        raise bad_input(f"{name} must not be empty")
    return value


def body_list(body: dict[str, Any], name: str) -> list[Any]:
    """An optional array field; absent or null reads as an empty list."""
    value = body.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad_input(f"{name} must be an array")
    return value


def is_id(value: Any) -> bool:
    return is_integer(value) and -MAX_ID <= value <= MAX_ID


def is_digits(text: str) -> bool:
    """ASCII digits only (str.isdigit also takes other scripts' digits and superscripts)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS


def int_items(values: list[Any], name: str) -> list[int]:
    """Items of an array of integer ids."""
    for index, value in enumerate(values):
        if not is_id(value):
            raise bad_input(f"{name}[{index}] must be an integer (a 64-bit id)")
    return values


def id_items(values: list[Any], name: str) -> list[int]:
    """Items of an id array whose item type the spec leaves open: integers or digit strings."""
    ids = []
    for index, value in enumerate(values):
        if is_id(value):
            ids.append(value)
        elif isinstance(value, str) and is_digits(value.strip()):
            ids.append(int(value))
        else:
            raise bad_input(f"{name}[{index}] must be an id (an integer or a string of digits)")
    return ids


def string_items(values: list[Any], name: str) -> list[str]:
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise bad_input(f"{name}[{index}] must be a string")
    return values


# ------------------------------------------------------------------- path, query, header
def parse_number(text: str, name: str) -> int:
    """A business number, business id or survey id given as text."""
    text = text.strip()
    if not is_digits(text):
        raise bad_input(f"{name} must be a number of at most {MAX_ID_DIGITS} digits")
    return int(text)


def query_number(request: HttpRequest, name: str) -> int:
    text = request.GET.get(name)
    if text is None or not text.strip():
        raise bad_input(f"Query parameter {name} is required")
    return parse_number(text, name)


def header_number(request: HttpRequest, name: str) -> int:
    text = request.headers.get(name)
    if text is None or not text.strip():
        raise bad_input(f"Header {name} is required")
    return parse_number(text, name)


def query_int(request: HttpRequest, name: str, default: int) -> int:
    text = request.GET.get(name)
    if text is None or text == "":
        return default
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    if not is_digits(digits):
        raise bad_input(f"Query parameter {name} must be an integer")
    return int(text)


def query_bool(request: HttpRequest, name: str, default: bool) -> bool:
    text = request.GET.get(name)
    if text is None or text == "":
        return default
    lowered = text.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise bad_input(f"Query parameter {name} must be true or false")


# ------------------------------------------------------------------------ pagination
def check_window(start: int, size: int) -> None:
    """The provider's deep-pagination rule: start + size at most 100000 (exactly is fine)."""
    if start < 0 or size < 1 or start + size > MAX_WINDOW:
        raise invalid_window()


# ----------------------------------------------------------------------------- dates
DATE_FORMAT = "%m/%d/%Y"
DATE_TIME_FORMAT = "%m/%d/%Y %H:%M:%S"


def parse_date(value: Any, name: str) -> datetime.date | None:
    """An optional MM/DD/YYYY date field."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise bad_input(f"{name} must be a string shaped MM/DD/YYYY")
    try:
        return datetime.datetime.strptime(value.strip(), DATE_FORMAT).date()
    except ValueError as error:
        raise bad_input(f"{name} must be a date shaped MM/DD/YYYY") from error


def parse_date_time(value: Any, name: str, *, end_of_day: bool) -> datetime.datetime | None:
    """An optional MM/DD/YYYY HH:mm:ss field; a bare date means the start (or end) of that day."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise bad_input(f"{name} must be a string shaped MM/DD/YYYY HH:mm:ss")
    text = value.strip()
    try:
        return datetime.datetime.strptime(text, DATE_TIME_FORMAT)
    except ValueError:
        pass
    try:
        day = datetime.datetime.strptime(text, DATE_FORMAT)
    except ValueError as error:
        raise bad_input(f"{name} must be shaped MM/DD/YYYY HH:mm:ss") from error
    return day.replace(hour=23, minute=59, second=59) if end_of_day else day


def check_date_order(start: Any, end: Any, start_name: str, end_name: str) -> None:
    if start is not None and end is not None and start > end:
        raise bad_input(f"{start_name} must not be after {end_name}")

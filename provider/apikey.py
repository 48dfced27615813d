"""Holding the partner API key so that it cannot leak through repr, str, logs or errors."""

from __future__ import annotations

from typing import Any, Protocol


class HasSecretValue(Protocol):
    """What the portal passes: an object whose ``.value`` is the plaintext key (e.g. Secret)."""

    @property
    def value(self) -> str: ...


class ApiKey:
    """The plaintext key, readable only through ``reveal()``; every text form is masked."""

    __slots__ = ("_value",)

    def __init__(self, key: str | HasSecretValue) -> None:
        value = key if isinstance(key, str) else getattr(key, "value", None)
        if not isinstance(value, str) or not value:
            raise ValueError("an API key is required (a non-empty str, or an object with .value)")
        # requests would echo an invalid header value in its exception text: refuse it here,
        # without quoting it.
        if value != value.strip() or any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in value):
            raise ValueError("the API key contains whitespace or control characters")
        self._value = value

    def reveal(self) -> str:
        return self._value

    def redact(self, text: str) -> str:
        """Remove the key from text that came from outside (e.g. a provider error message)."""
        return text.replace(self._value, "***") if self._value in text else text

    def __repr__(self) -> str:
        return "ApiKey(***)"

    __str__ = __repr__

    def __reduce__(self) -> str | tuple[Any, ...]:
        raise TypeError("an API key is not picklable; pass it to the client at the moment of use")

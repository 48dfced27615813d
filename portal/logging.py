"""Keeping provider API keys and personal API tokens out of log lines and error reports."""

import logging
import re

from django.views.debug import SafeExceptionReporterFilter

# Header and parameter spellings a key can travel under, in request dumps and URLs, and the
# portal's own API tokens wherever they appear.
_SECRET_PATTERNS = [
    re.compile(r"(?i)(x-api-key['\"]?\s*[:=]\s*['\"]?)([^'\"\s,}]+)"),
    re.compile(r"(?i)(api_key=)([^&\s'\"]+)"),
    re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?(?:bearer|basic|token)\s+)([^'\"\s,}]+)"),
    re.compile(r"(?i)(['\"]?api_key['\"]?\s*:\s*['\"])([^'\"]+)"),
    re.compile(r"()\brpt_[A-Za-z0-9_\-]{8,}"),
]


def redact(text: str) -> str:
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(r"\1[redacted]", text)
    return text


class RedactSecretsFilter(logging.Filter):
    """Redacts the message and any traceback attached to the record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            # Formatted once here; handlers then print this text instead of formatting again.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


# A URL up to the next whitespace or quote, or up to the next URL: a failover list such as
# "amqp://u:p@h1;amqp://u:p@h2" holds one password per URL.
_URL = re.compile(r"[a-z][a-z0-9+.\-]*://(?:(?![a-z][a-z0-9+.\-]*://)[^\s'\"<>])*", re.I)
# Containers are followed this deep at most: enough for DATABASES and CACHES, and a bound on
# values that contain themselves.
_MAX_DEPTH = 8


def mask_url_passwords(text: str, mask: str) -> str:
    """`text` with the password of every URL that carries credentials replaced by `mask`."""
    return _URL.sub(lambda match: _mask_one(match.group(), mask), text)


def _mask_one(url: str, mask: str) -> str:
    scheme, _, rest = url.partition("://")
    # The last "@" ends the credentials: an unencoded "@" in a password still stays hidden.
    userinfo, at, location = rest.rpartition("@")
    user, colon, password = userinfo.partition(":")
    if not (at and colon and password) or "/" in user:
        return url
    return f"{scheme}://{user}:{mask}@{location}"


class RedactingExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's error reports (the 500 email, DEBUG pages) with every value whose name looks
    secret hidden, in POST data and in local variables, whether or not the view was marked with
    `sensitive_post_parameters`/`sensitive_variables`; other values have keys and tokens
    redacted, and the password of every URL with credentials masked, in settings (at any depth
    of DATABASES, CACHES...), in request.META (the whole environment under runserver) and in the
    traceback's variables: DATABASE_URL, EMAIL_URL, REDIS_URL and the broker's URL carry
    passwords under names that do not look secret."""

    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|PLAINTEXT|CREDENTIAL", flags=re.I)

    def get_post_parameters(self, request):
        parameters = super().get_post_parameters(request)
        if not parameters:
            return parameters
        cleansed = parameters.copy()
        for name in cleansed:
            if self.hidden_settings.search(name):
                cleansed[name] = self.cleansed_substitute
            elif hasattr(cleansed, "setlist"):
                cleansed.setlist(name, [redact(str(v)) for v in cleansed.getlist(name)])
        return cleansed


    def get_traceback_frame_variables(self, request, tb_frame):
        variables = super().get_traceback_frame_variables(request, tb_frame)
        return [(name, self.cleansed_substitute if self.hidden_settings.search(name) else value)
                for name, value in variables]

    def cleanse_setting(self, key, value):
        # Django's own cleansing recurses through dicts and lists by calling this method again,
        # so the strings at every depth come through here.
        cleansed = super().cleanse_setting(key, value)
        if isinstance(cleansed, str):
            return mask_url_passwords(cleansed, self.cleansed_substitute)
        return cleansed

    def cleanse_special_types(self, request, value):
        value = super().cleanse_special_types(request, value)
        value = redact(value) if isinstance(value, str) else value
        return self._masked(value, depth=0)

    def _masked(self, value, depth: int):
        if isinstance(value, str):
            return mask_url_passwords(value, self.cleansed_substitute)
        if depth >= _MAX_DEPTH:
            return value
        # Exact types only: a copy of a subclass (a model, a settings object) would lose what
        # makes it one, and the copy is what the report prints, never the frame's own value.
        if type(value) is dict:
            return {key: self._masked(item, depth + 1) for key, item in value.items()}
        if type(value) in (list, tuple):
            return type(value)(self._masked(item, depth + 1) for item in value)
        return value

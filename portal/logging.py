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


class RedactingExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's error reports (the 500 email, DEBUG pages) with every value whose name looks
    secret hidden, in POST data and in local variables, whether or not the view was marked with
    `sensitive_post_parameters`/`sensitive_variables`; other values have keys and tokens
    redacted."""

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

    def cleanse_special_types(self, request, value):
        value = super().cleanse_special_types(request, value)
        return redact(value) if isinstance(value, str) else value

    def get_traceback_frame_variables(self, request, tb_frame):
        variables = super().get_traceback_frame_variables(request, tb_frame)
        return [(name, self.cleansed_substitute if self.hidden_settings.search(name) else value)
                for name, value in variables]

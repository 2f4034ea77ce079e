"""Defence in depth for every log line the dashboard writes.

It must not import models: ``LOGGING`` is configured before the app
registry is ready.
"""

import logging
import re
import traceback

_BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\",;]+")
MASK = "[redacted]"


def _configured_keys() -> list[str]:
    try:
        from django.conf import settings

        endpoints = settings.HERMES_ENDPOINTS or {}
    except Exception:  # settings not configured (a management command's early log)
        return []
    return sorted(
        {ep.api_key for ep in endpoints.values() if getattr(ep, "api_key", "")},
        key=len,
        reverse=True,
    )


def mask(text: str) -> str:
    for key in _configured_keys():
        text = text.replace(key, MASK)
    return _BEARER.sub(r"\1" + MASK, text)


def safe_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` and its causes with every exception message withheld."""
    parts, seen = [], set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        name = f"{type(current).__module__}.{type(current).__qualname__}"
        frames = "".join(traceback.format_tb(current.__traceback__))
        parts.append(f"Traceback (most recent call last):\n{frames}{name}: (message withheld)")
        current = current.__cause__ or current.__context__
    return "\n\nWhile handling the above, or caused by:\n".join(reversed(parts))


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = safe_traceback(record.exc_info[1])
            record.exc_info = None
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep the template, drop the args
            message, record.args = str(record.msg), ()
        masked = mask(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_text:
            record.exc_text = mask(record.exc_text)
        return True

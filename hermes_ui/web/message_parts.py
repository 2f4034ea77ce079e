"""What features add to each message of a transcript, drawn in Python.

A transcript window holds up to a few hundred messages; a template include
per message and per feature is the page's hottest loop. A feature registers
one function here (its ``AppConfig.ready()``) that takes the template context
and a ``hermes.transcript.Message`` and returns a ``SafeString`` (everything
from Hermes escaped), appended at the end of the message's ``<article>``.
It must read what it needs in a bounded number of queries for the page,
whatever the number of messages (``tests/sessions/test_page_cost.py``).
"""

from __future__ import annotations

import html
from collections.abc import Callable

from django.utils.safestring import SafeString, mark_safe

_PARTS: dict[str, tuple[int, Callable]] = {}


def register(name: str, draw: Callable, *, order: int = 50) -> None:
    _PARTS[name] = (order, draw)


def parts() -> list[Callable]:
    return [draw for _, draw in sorted(_PARTS.values(), key=lambda p: p[0])]


def escape(value) -> str:
    """Django's ``escape`` (the same ``html.escape(str(value))``) without its check for
    lazy strings on every call: a transcript window escapes thousands of values."""
    return html.escape(str(value))


def fill(template: str, **values) -> SafeString:
    """``format_html`` for the hot loop: each value escaped unless it is already safe."""
    safe = {k: v.__html__() if hasattr(v, "__html__") else escape(v) for k, v in values.items()}
    return mark_safe(template.format(**safe))  # noqa: S308 - every value escaped just above

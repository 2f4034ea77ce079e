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

from collections.abc import Callable

_PARTS: dict[str, tuple[int, Callable]] = {}


def register(name: str, draw: Callable, *, order: int = 50) -> None:
    _PARTS[name] = (order, draw)


def parts() -> list[Callable]:
    return [draw for _, draw in sorted(_PARTS.values(), key=lambda p: p[0])]

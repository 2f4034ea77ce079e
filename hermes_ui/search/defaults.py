"""Where the index page starts for a user who opens it with no parameters, by registration.

The saved views feature lets a user pick a default view; the index knows
nothing of views and asks a registered function instead (from
``AppConfig.ready()``)::

    defaults.register(start)   # start(request, endpoint) -> query dict, or None

The page then redirects to itself with that query (``q``, ``source``,
``kind``, ``state`` and ``view``), so the address bar shows what applies.
Any parameter at all (``?view=all`` for every session) skips it.
"""

from __future__ import annotations

from collections.abc import Callable

_starts: list[Callable] = []


def register(start: Callable) -> None:
    if start not in _starts:
        _starts.append(start)


def start(request, endpoint) -> dict | None:
    """The first registered answer for this user; None: every session."""
    if request.GET:
        return None
    for ask in _starts:
        found = ask(request, endpoint)
        if found:
            return found
    return None

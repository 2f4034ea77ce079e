"""Whole numbers from query strings and form posts, read without surprises.

``str.isdigit()`` also accepts ``"²"`` and other Unicode digits that ``int()``
refuses, and an unbounded number overflows a database integer: both would
be a 500. Ids and positions here are ASCII digits, at most 18 of them.
"""

from __future__ import annotations

import re

MAX_DIGITS = 18  # below 2**63: fits every integer column, SQLite's and PostgreSQL's
BIGGEST = 10**MAX_DIGITS - 1
_WHOLE = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}")


def whole(text, *, signed: bool = False) -> int | None:
    """``text`` as an int if it is one (``-`` first only when ``signed``), else None."""
    if not isinstance(text, str) or not _WHOLE.fullmatch(text):
        return None
    if text.startswith("-") and not signed:
        return None
    return int(text)


def wholes(values, *, limit: int) -> list[int]:
    """The non-negative whole numbers among ``values``, at most ``limit`` of them."""
    found = (whole(value) for value in values)
    return [number for number in found if number is not None][:limit]

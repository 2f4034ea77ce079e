"""Holds: a feature may stop an approved deletion just before its DELETE.

Retention registers one: a session it proposed that became protected after its
batch was filed (a "keep" tag, a review item, a fresh note) is not deleted, even
though a second admin approved the batch. ``reason(request)`` asks every
registered hold; the first reason given makes execution void the request
(nothing is sent) with that reason.
"""

from __future__ import annotations

from collections.abc import Callable

_holds: list[Callable] = []


def register(hold: Callable) -> None:
    """``hold(request) -> str | None``: why ``request`` must not run now, or None."""
    if hold not in _holds:
        _holds.append(hold)


def reason(request) -> str | None:
    for hold in _holds:
        found = hold(request)
        if found:
            return found
    return None

"""Regions other features add to a bulk deletion's page (retention: what its rule spared).

``register(panel)``: ``panel(batch, user) -> (template name, context) | None``.
The batch page includes each template that answers, below the request's reason,
so the deletion feature shows them without knowing those features.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

_panels: list[Callable] = []


@dataclass(frozen=True)
class Panel:
    template: str
    context: dict


def register(panel: Callable) -> None:
    if panel not in _panels:
        _panels.append(panel)


def for_batch(batch, user) -> list[Panel]:
    found = []
    for panel in _panels:
        answer = panel(batch, user)
        if answer is not None:
            found.append(Panel(*answer))
    return found

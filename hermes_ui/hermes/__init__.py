"""Everything that speaks HTTP to a Hermes API server lives in this package.

Its names load on first use (PEP 562): the client brings httpx and pydantic, which
a process that never calls Hermes (a management command, a task worker before its
first job) need not import at start.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_ui.hermes.client import HermesClient, client_for
    from hermes_ui.hermes.errors import HermesError, Outcome
    from hermes_ui.hermes.session import Session, is_closed

__all__ = ["HermesClient", "HermesError", "Outcome", "Session", "client_for", "is_closed"]
_MODULES = {
    "HermesClient": "client",
    "client_for": "client",
    "HermesError": "errors",
    "Outcome": "errors",
    "Session": "session",
    "is_closed": "session",
}


def __getattr__(name: str):
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULES[name]}"), name)

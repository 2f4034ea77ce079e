"""Erasure by registration: each feature that keeps a copy of session data erases it.

When Hermes verifiably deleted a session, the dashboard erases its own copies
of it (``deletion.erasure`` runs that). What those copies are is each
feature's own knowledge, so each feature registers an eraser from its
``AppConfig.ready()``::

    erasers.register("verdicts", "review verdicts", erase, models=[Verdict], held=held)

``erase(scope, ids)`` removes what the feature keeps about ``ids`` (session
ids, on the endpoint identity ``scope``: an ``Endpoint``; ``mine(scope)``
selects its rows) and returns counts by kind. It runs inside the erasure's
transaction; anything outside the database (caches, files, Redis) is left to
a step given to ``after_commit``. ``models`` are the models it covers:
``tests/deletion/test_erasers.py`` fails for a model that holds session ids
which no eraser covers and no reason keeps.

This module is the bottom layer: it imports no feature, so any feature can
register without importing the deletion feature.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import F, Q, TextField
from django.db.models.functions import Cast
from django.db.models.lookups import Contains

if TYPE_CHECKING:
    from django.db.models import Model

    from hermes_ui.platform.endpoints import Endpoint

Counts = dict[str, int]
Erase = Callable[["Endpoint", list[str]], Counts]


@dataclass(frozen=True)
class Eraser:
    name: str  # the first kind it counts, e.g. "turns"
    label: str  # how the result page names that kind: "chat turns"
    erase: Erase
    models: tuple[type[Model], ...] = ()
    also: tuple[tuple[str, str], ...] = ()  # further kinds it counts, (kind, label)
    # What is held now, without erasing (the snapshot of an "erase local copies" case).
    held: Erase | None = None
    # Also called for ids whose cached view may show an erased one (a compression
    # root resolves to its tip): for caches keyed by the id that shows it.
    related: bool = False

    @property
    def kinds(self) -> dict[str, str]:
        return {self.name: self.label, **dict(self.also)}


_registry: dict[str, Eraser] = {}
_steps: ContextVar[list[Callable[[], Counts | None]] | None] = ContextVar(
    "erasers_steps", default=None
)


def register(
    name: str,
    label: str,
    erase: Erase,
    *,
    models: Iterable[type[Model]] = (),
    also: dict[str, str] | None = None,
    held: Erase | None = None,
    related: bool = False,
) -> Eraser:
    """Add an eraser (call it from ``AppConfig.ready()``); registering a name again replaces it.

    Registration order is the order of ``INSTALLED_APPS`` (then of the calls
    in one ``ready()``): the result page lists the kinds in that order.
    """
    eraser = Eraser(name, label, erase, tuple(models), tuple((also or {}).items()), held, related)
    for other in _registry.values():
        clash = other.name != name and set(other.kinds) & set(eraser.kinds)
        if clash:
            raise ValueError(f"eraser {name!r} counts {sorted(clash)}, as {other.name!r} does")
    _registry[name] = eraser
    return eraser


def registered() -> list[Eraser]:
    return list(_registry.values())


def kinds() -> dict[str, str]:
    """Every kind an eraser counts, with its label, in registration order."""
    return {kind: label for eraser in registered() for kind, label in eraser.kinds.items()}


def mine(scope: Endpoint) -> Q:
    """The rows of this endpoint identity, for models stamped with ``endpoint``/``endpoint_fp``."""
    # Rows stamped before endpoint identities existed carry no fingerprint;
    # erasing them too errs on the side of the data subject.
    return Q(endpoint=scope.id, endpoint_fp__in=[scope.fingerprint, ""])


def strings(value) -> Iterator[str]:
    """Every string inside a JSON value (the ids an event or a task's arguments carry)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


_PLAIN = re.compile(r"^[A-Za-z0-9_.:-]+$")
_NARROW_AT_MOST = 100


def text_names(field: str, ids: list[str]) -> Q:
    """Rows whose ``field`` (text, or JSON read as text) contains one of ``ids``: a
    narrowing for the database, never the decision (the caller parses what it reads).

    An id JSON would escape, or too many ids, narrow nothing (``Q()``: every row).
    """
    if not ids or len(ids) > _NARROW_AT_MOST or not all(_PLAIN.match(i) for i in ids):
        return Q()
    found = Q()
    for session_id in ids:
        found |= Q(Contains(Cast(F(field), TextField()), session_id))
    return found


def after_commit(step: Callable[[], Counts | None]) -> None:
    """Run ``step`` once the erasure's transaction has committed; add the counts it returns.

    For copies outside the database (caches, files, Redis) and for database
    maintenance that cannot run in a transaction. Unlike
    ``transaction.on_commit`` the steps run before SQLite drops the erased
    bytes (``sqlite_wipe``), and they report what they erased.
    """
    steps = _steps.get()
    if steps is None:
        raise RuntimeError("after_commit is for erasers, while deletion.erasure runs them")
    steps.append(step)


@contextlib.contextmanager
def collecting() -> Iterator[list[Callable[[], Counts | None]]]:
    """The steps erasers give to ``after_commit`` while the block runs (``deletion.erasure``)."""
    steps: list[Callable[[], Counts | None]] = []
    token = _steps.set(steps)
    try:
        yield steps
    finally:
        _steps.reset(token)

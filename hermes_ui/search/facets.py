"""Search filters that other features own, registered by key (``tag:``, ``label:`` …).

``sessions(endpoint, value, user)`` returns a ``Q`` over index rows. The registry
imports no feature, so any feature may register.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_ui.index import archived

if TYPE_CHECKING:
    from django.db.models import Q, QuerySet

    from hermes_ui.platform.endpoints import Endpoint


@dataclass(frozen=True)
class Facet:
    key: str
    parse: Callable[[str], Any]
    sessions: Callable[[Endpoint, Any, Any], Q]
    negatable: bool = False
    help: str = ""
    # Applied when the query names no ``key:`` term (``archived:no``); ``hides(endpoint)``
    # says cheaply whether that default excludes any row there at all.
    default: Any = None
    hides: Callable[[Endpoint], bool] | None = None


@dataclass(frozen=True)
class FacetTerm:
    key: str
    value: Any
    negated: bool = False
    text: str = ""  # as typed, for messages and saved queries


_registry: dict[str, Facet] = {}


def register(
    key: str,
    *,
    parse: Callable[[str], Any],
    sessions: Callable[[Endpoint, Any, Any], Q],
    negatable: bool = False,
    help: str = "",
    default: Any = None,
    hides: Callable[[Endpoint], bool] | None = None,
) -> Facet:
    """Add (or replace) the filter ``key:``; call it from ``AppConfig.ready()``.

    ``default``: the value applied when a query has no ``key:`` term."""
    facet = Facet(key.lower(), parse, sessions, negatable, help, default, hides)
    _registry[facet.key] = facet
    return facet


def get(key: str) -> Facet | None:
    return _registry.get(key.lower())


def registered() -> list[Facet]:
    return list(_registry.values())


def with_defaults(endpoint: Endpoint, terms) -> list[FacetTerm]:
    """``terms`` plus each default facet the query does not name, where it hides a row."""
    named = {term.key for term in terms}
    extra = [
        FacetTerm(f.key, f.default, False, f"{f.key}:{f.default}")
        for f in _registry.values()
        if f.default is not None and f.key not in named and (f.hides is None or f.hides(endpoint))
    ]
    return [*terms, *extra]


def restrict(rows: QuerySet, endpoint: Endpoint, terms, user) -> QuerySet:
    """``rows`` (``IndexedSession``) narrowed by each term, for ``user``."""
    for term in terms:
        facet = _registry.get(term.key)
        if facet is None:
            continue  # a feature that is no longer installed filters nothing
        match = facet.sessions(endpoint, term.value, user)
        rows = rows.exclude(match) if term.negated else rows.filter(match)
    return rows


# The search's own filter: archived sessions are hidden unless asked for, as Hermes hides them.
register(
    "archived",
    parse=archived.parse,
    sessions=archived.sessions,
    help=archived.HELP,
    default=False,
    hides=archived.hides_any,
)

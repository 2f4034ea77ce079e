"""Search filters that other features own (``tag:``, ``label:`` …), in one table.

``parse(text)`` turns the value typed after the colon into what ``sessions``
takes, or raises ``ValueError`` with a message for the user;
``sessions(endpoint, value, user)`` is a ``Q`` over ``IndexedSession`` rows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.module_loading import import_string

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


# Each key's ``Facet``, named by dotted path so that the index imports no feature.
FACETS = {
    "archived": "hermes_ui.search.facets.ARCHIVED",
    "label": "hermes_ui.review.search_filters.LABEL",
    "reviewed": "hermes_ui.review.search_filters.REVIEWED",
    "queue": "hermes_ui.review.search_filters.QUEUE",
    "tag": "hermes_ui.tags.marks.FACET",
    "new": "hermes_ui.watermarks.marks.FACET",
}


@functools.cache
def loaded() -> dict[str, Facet]:
    """The table's facets by key, imported on first use."""
    return {key: import_string(path) for key, path in FACETS.items()}


def get(key: str) -> Facet | None:
    return loaded().get(key.lower())


def all_facets() -> list[Facet]:
    return list(loaded().values())


def with_defaults(endpoint: Endpoint, terms) -> list[FacetTerm]:
    """``terms`` plus each default facet the query does not name, where it hides a row."""
    named = {term.key for term in terms}
    extra = [
        FacetTerm(f.key, f.default, False, f"{f.key}:{f.default}")
        for f in loaded().values()
        if f.default is not None and f.key not in named and (f.hides is None or f.hides(endpoint))
    ]
    return [*terms, *extra]


def restrict(rows: QuerySet, endpoint: Endpoint, terms, user) -> QuerySet:
    """``rows`` (``IndexedSession``) narrowed by each term, for ``user``."""
    for term in terms:
        facet = loaded().get(term.key)
        if facet is None:
            continue  # a feature that is no longer installed filters nothing
        match = facet.sessions(endpoint, term.value, user)
        rows = rows.exclude(match) if term.negated else rows.filter(match)
    return rows


# The search's own filter: archived sessions are hidden unless asked for, as Hermes hides them.
ARCHIVED = Facet(
    "archived",
    archived.parse,
    archived.sessions,
    help=archived.HELP,
    default=False,
    hides=archived.hides_any,
)

"""The session page's regions: what each feature puts on the page, and where.

A feature registers its region once (its ``AppConfig.ready()``) with a template
name; the registry, not the template, decides where the region goes:

- ``actions``: buttons under the title (rename, close, fork, deletion);
- ``side``: the side column, each region a compact ``<details>`` panel
  (``id="panel-<name>"``) that opens in place; ``key`` opens it from the keyboard;
- ``main``: the main column, after the transcript (the chat box).

``sessions/detail.html`` walks ``placed()``; a region's template is rendered
in the page's own context (``endpoint``, ``session``, ``session_id``,
``resolved_id``, ``can``), so it reads what it needs itself, in a bounded
number of queries whatever the transcript's length (``tests/sessions``
counts them).
"""

from __future__ import annotations

from dataclasses import dataclass

PLACES = ("actions", "side", "main")
# Keys the page itself uses (find, messages, write a message); a panel cannot take them.
_PAGE_KEYS = {"n", "p", "j", "k", "w", "/", "?"}


@dataclass(frozen=True)
class Region:
    name: str  # stable: the panel's id is panel-<name>
    template: str
    place: str
    order: int
    label: str = ""
    key: str = ""  # one letter that opens a side panel
    summary: str = ""  # template of the panel's one-line summary, next to its label


_REGIONS: dict[str, Region] = {}


def register(
    name: str,
    template: str,
    *,
    place: str,
    order: int,
    label: str = "",
    key: str = "",
    summary: str = "",
) -> None:
    if place not in PLACES:
        raise ValueError(f"session region {name!r}: place must be one of {PLACES}")
    if key and (len(key) != 1 or key in _PAGE_KEYS):
        raise ValueError(f"session region {name!r}: key {key!r} is not a free single key")
    taken = {r.key: r.name for r in _REGIONS.values() if r.key and r.name != name}
    if key in taken:
        raise ValueError(f"session region {name!r}: key {key!r} is taken by {taken[key]!r}")
    _REGIONS[name] = Region(name, template, place, order, label or name.title(), key, summary)


def placed(place: str) -> list[Region]:
    return sorted((r for r in _REGIONS.values() if r.place == place), key=lambda r: r.order)


def layout() -> dict[str, list[Region]]:
    """Every place with its regions in order, for the page's template."""
    return {place: placed(place) for place in PLACES}

"""What each kind of job is called and how its results are shown.

A feature registers its kind next to the work it runs (``bulk/close_job.py``
and so on); the progress page only knows the name stored on the row.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    name: str
    title: str  # the progress page's heading: "Closing sessions"
    unit: str = "sessions"  # "3 of 10 sessions"
    # The table of ``result["rows"]`` (each a dict), included as ``rows``; none: a count.
    results_template: str = ""
    # What to do about an interrupted job of this kind.
    interrupted: str = "Start it again if it is still wanted."
    # The link to what the job made (``result["next"]``), shown until it is done.
    next_label: str = "Open the result"
    # The link back where the job was started (``result["back"]``), once it has ended.
    back_label: str = "Back"


_KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    _KINDS[kind.name] = kind
    return kind


def of(name: str) -> Kind:
    return _KINDS.get(name) or Kind(name, "Background job", unit="steps")

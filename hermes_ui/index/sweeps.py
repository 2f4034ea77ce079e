"""When a full sweep is due, which kind, and which lists a list sweep reads to the end.

The interval adapts to the last sweep's duration, so a slow sweep is not due again at once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from hermes_ui.index.models import IndexSyncState

SPACING = 4  # a sweep is never due before this many times the last one's duration
CONFIRM_EVERY = 4  # every this many sweeps (and the first) page the default list to the end


def full_seconds(state: IndexSyncState) -> float:
    """How long the last completed full sweep took (0 when not known)."""
    value = (state.last_report or {}).get("full_seconds")
    return float(value) if isinstance(value, (int, float)) and value > 0 else 0.0


def interval(state: IndexSyncState) -> float:
    """Seconds from one full sweep to the next: the setting, or more after a long sweep."""
    return max(float(settings.HERMES_INDEX_FULL_SWEEP_SECONDS), SPACING * full_seconds(state))


def list_at(state: IndexSyncState):
    """When the last list sweep completed (None: never). An index from before recheck
    sweeps existed records none: its last full sweep was a list sweep."""
    value = (state.last_report or {}).get("list_at")
    if not isinstance(value, str):
        return state.last_full_at
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return state.last_full_at


def due_list(state: IndexSyncState) -> bool:
    """Is a list sweep due: the first index, then every ``HERMES_INDEX_LIST_SWEEP_SECONDS``."""
    last = list_at(state)
    if last is None:
        return True
    return (timezone.now() - last).total_seconds() >= settings.HERMES_INDEX_LIST_SWEEP_SECONDS


def recheck_cursor(state: IndexSyncState) -> str:
    """The last session id a stopped recheck sweep rechecked ("" to start from the first)."""
    report = state.last_report or {}
    value = report.get("recheck_cursor", report.get("verify_cursor"))  # the former key
    return value if isinstance(value, str) else ""


def due_full(state: IndexSyncState) -> bool:
    if state.last_full_at is None:
        return True
    return (timezone.now() - state.last_full_at).total_seconds() >= interval(state)


def confirms(state: IndexSyncState) -> bool:
    """Does this sweep page the default list to the end (the first, then every Nth)?"""
    return state.last_full_at is None or state.sweep % CONFIRM_EVERY == 0


def certain(row: dict) -> bool:
    """Is this administrative-list row listed as itself in the default list, for sure?"""
    return (
        not row.get("parent_session_id")
        and row.get("end_reason") != "compression"
        and row.get("source") != "subagent"
    )


@dataclass
class Derivation:
    certain: int = 0  # rows whose default-list visibility follows from the admin list
    uncertain: int = 0  # rows that need the default list itself
    disagreed: int = 0  # certain rows the default list did not show as themselves

    def as_dict(self) -> dict:
        return asdict(self)


def kind(state: IndexSyncState) -> str:
    """The sync due now: "list" (sweep), "recheck" (sweep) or "incremental"."""
    if due_list(state):
        return "list"
    return "recheck" if due_full(state) else "incremental"

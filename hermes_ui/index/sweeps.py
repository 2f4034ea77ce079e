"""When a full sweep is due, which kind, and which lists a list sweep reads to the end.

**Two kinds of full sweep.** The regular one is the *recheck sweep*: the
incremental refresh's list call, then one ``GET /api/sessions/{id}`` per
indexed session (``sync``, paced by ``pacing``). It finds deletions and
changes that do not move a session in the activity order, at a few
milliseconds of Hermes' time per session instead of a whole-table query per
200. The *list sweep* pages the lists to the end (round 1's sweep, paced by
``pacing``): the first index of an endpoint, then every
``HERMES_INDEX_LIST_SWEEP_SECONDS`` (a day by default), and ``index_sync
--full``. Archived sessions and default-list visibility are only learnt from
the lists, so they wait for a list sweep (or an incremental refresh that
reaches them). Both count as a full sweep for the interval below.

**The interval adapts.** A sweep is due ``HERMES_INDEX_FULL_SWEEP_SECONDS``
after the last one (the floor), and never before ``SPACING`` times the last
sweep's own duration has passed: a sweep paced down to an hour at 100,000
sessions is not due again 15 minutes after it ends. The incremental refresh
(one list call when nothing changed) keeps the index fresh in between.

**Each list is read once.** The default list's visibility can be derived
from the administrative list (``include_children=true``) for most rows, by
the rules of ``hermes-sessions-contract.md`` and Hermes' own query
(``hermes_state.list_sessions_rich``): a row without a parent is listed as
itself unless it is a compression root (projected to its tip) or carries a
delegate marker the API never shows (only ``subagent`` rows can). Those
*certain* rows are marked visible from the administrative list alone. The
rest (children: branches are listed, delegates and continuations are not;
compression roots; parentless subagent rows) are *uncertain*: they keep the
visibility the last reading of the default list gave them, and the
incremental refresh reads the top of the default list whenever something
changed. The first sweep of an index, and every ``CONFIRM_EVERY``-th one,
still pages the default list to the end; it also checks the derivation
against it (``Derivation.disagreed``, in the sync's report).
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

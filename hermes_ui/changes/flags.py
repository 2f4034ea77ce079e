"""Archive, restore, pin and unpin: the session flags Hermes accepts in PATCH after 0.19.

hermes-agent 0.15-0.19 refuse them (400 ``unsupported_session_field``); a
newer Hermes (v0.20.0, from git) keeps them and leaves archived sessions out
of its list. The dashboard learns which from the first answer and remembers
it per endpoint identity (``observed.SESSION_FLAGS``), so an older server is
asked once; its pages then name the Hermes change instead of the buttons.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.audit.models import Outcome
from hermes_ui.observed import facts
from hermes_ui.platform.endpoints import Endpoint

UNSUPPORTED = "unsupported_session_field"
NEEDS = (
    "Archive and pin need a Hermes newer than 0.19 (PATCH archived and pinned, v0.20.0): "
    "this endpoint refused them with unsupported_session_field."
)


@dataclass(frozen=True)
class Op:
    field: str
    value: bool
    label: str
    done: str


OPS = {
    "archive": Op("archived", True, "Archive", "The session is archived: Hermes' list omits it."),
    "restore": Op("archived", False, "Restore", "The session is restored to Hermes' list."),
    "pin": Op("pinned", True, "Pin", "The session is pinned."),
    "unpin": Op("pinned", False, "Unpin", "The session is no longer pinned."),
}


def refused_here(endpoint: Endpoint, session=None) -> bool:
    """Whether this endpoint was last seen refusing the flags (nothing to offer).

    A session that reports ``archived`` says the server was upgraded since: the
    flags are offered again, and the next answer records what holds now.
    """
    if session is not None and isinstance(getattr(session, "archived", None), bool):
        return False
    seen = facts.latest(endpoint, facts.SESSION_FLAGS)
    return seen is not None and not seen.holds


def learn(endpoint: Endpoint, applied, session_id: str) -> None:
    """Remember what this answer said about the flags: refused, or accepted."""
    if applied.replayed:
        return
    ref = applied.result.event_id
    if applied.outcome == Outcome.SUCCESS:
        facts.record(endpoint, facts.SESSION_FLAGS, True, facts.Source.CHANGE, ref)
    elif applied.result.error_code == UNSUPPORTED:
        facts.record(endpoint, facts.SESSION_FLAGS, False, facts.Source.CHANGE, ref, [session_id])


def applied_flag(session, asked: dict) -> dict:
    """The evidence of a returned row: did Hermes keep the flag that was asked for?"""
    op = OPS[asked["op"]]
    now = session.raw.get(op.field) if session is not None else None
    return {"applied": now is op.value, "reported": now if isinstance(now, bool) else None}

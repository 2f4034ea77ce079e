"""Reading one side of a comparison, honestly about where its transcript came from."""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.changes import apply, reconcile
from hermes_ui.hermes import Session
from hermes_ui.lineage.graph.tip import compression_tip
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries

OWN, COMPRESSION, FORK_RECORD, UNREADABLE = "own", "compression", "fork_record", "unreadable"


@dataclass
class SideRead:
    session: Session
    rows: list[dict] | None  # the transcript compared; None when it cannot be read
    resolved_id: str  # the session whose rows /messages returned
    source: str  # OWN, COMPRESSION, FORK_RECORD or UNREADABLE
    recorded_count: int | None = None  # from the fork record, when there is one

    @property
    def comparable(self) -> bool:
        return self.rows is not None


def read_side(client, ep: Endpoint, session_id: str) -> SideRead:
    """Raises ``HermesError`` when Hermes cannot be read."""
    session = client.get_session(session_id)
    messages = client.get_messages(session_id)
    resolved, rows = messages["session_id"], messages["data"]
    if resolved == session_id:
        return SideRead(session, rows, resolved, OWN)
    if _compression_tip(ep, session) == resolved:
        return SideRead(session, rows, resolved, COMPRESSION)
    count, digest = _fork_record(ep, session_id)
    if count is not None and digest and reconcile.messages_digest(rows[:count]) == digest:
        return SideRead(session, rows[:count], resolved, FORK_RECORD, count)
    return SideRead(session, None, resolved, UNREADABLE, count)


def _compression_tip(ep: Endpoint, session: Session) -> str | None:
    if not session.compressed:
        return None
    found = queries.lineage(ep, session.id)
    if found is None:
        return None  # not indexed yet: a compressed session resolving elsewhere is unproven
    return compression_tip(Tree(found.rows), session.id)


def _fork_record(ep: Endpoint, session_id: str) -> tuple[int | None, str | None]:
    """The parent's own message count and digest, from the dashboard's first fork of it.

    Only the first fork's pre-read can hold the parent's own rows: every
    later one already read the earlier fork's messages (and recorded no digest).
    """
    events = AuditEvent.objects.filter(
        capability=apply.FORK, **ep.scope(), session_id=session_id, outcome=Outcome.SUCCESS
    ).order_by("at", "id")
    for event in events[:20]:
        evidence = event.evidence or {}
        if evidence.get("digest") and isinstance(evidence.get("parent_message_count"), int):
            return evidence["parent_message_count"], evidence["digest"]
    return None, None

"""Bench shortcut: fill the dashboard's index straight from a peer's ``state.db``.

At 100,000 sessions on a loaded two-core machine a first index through
Hermes' API (about a thousand whole-table list calls, then 100,000
transcript reads) does not fit in a bench run. ``scale100k`` measures the
real first index for as long as its budget allows, then completes the index
with this: the rows and transcripts are read from the peer's database
(read-only, the way Hermes' list would show them, roughly: last activity is
the last message's time, the preview the first user message) and written
through the dashboard's own write paths (``store.upsert``,
``content_store._write``), so the pages measured afterwards read an index of
the full size. A real sync follows it. Never used outside the bench.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

CHUNK = 1000


def fill(ep, home: Path, say) -> int:
    from hermes_ui.index import content_store, store, sweeps
    from hermes_ui.index.models import ContentSession, IndexedSession
    from hermes_ui.index.sync_state import state_for

    db = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    state = state_for(ep)
    gen = state.generation + 1
    done = set(ContentSession.objects.filter(**ep.scope()).values_list("session_id", flat=True))
    sessions = db.execute(
        "SELECT s.id, s.source, s.model, s.title, s.started_at, s.ended_at, s.end_reason, "
        "s.message_count, s.tool_call_count, s.parent_session_id, "
        "(SELECT MAX(timestamp) FROM messages m WHERE m.session_id = s.id) AS last_active, "
        "(SELECT substr(content, 1, 60) FROM messages m WHERE m.session_id = s.id "
        " AND m.role = 'user' ORDER BY id LIMIT 1) AS preview "
        "FROM sessions s WHERE COALESCE(s.archived, 0) = 0"
    ).fetchall()
    written = 0
    for start in range(0, len(sessions), CHUNK):
        rows = [dict(r) for r in sessions[start : start + CHUNK]]
        for row in rows:
            row["last_active"] = row["last_active"] or row["started_at"]
        store.upsert(ep, rows, gen, listed=True)
        certain = {r["id"]: r["id"] for r in rows if sweeps.certain(r)}
        store.set_visible(ep, certain, {}, gen)
        wanted = [r["id"] for r in rows if r["id"] not in done]
        if not wanted:
            continue
        sigs = {
            sid: content_store.signature(count, active)
            for sid, count, active in IndexedSession.objects.filter(
                **ep.scope(), session_id__in=wanted
            ).values_list("session_id", "message_count", "last_active")
        }
        marks = ",".join("?" * len(wanted))
        messages: dict[str, list[dict]] = {sid: [] for sid in wanted}
        for m in db.execute(
            "SELECT id, session_id, role, content, timestamp, tool_calls, tool_call_id, "  # noqa: S608
            f"tool_name FROM messages WHERE session_id IN ({marks}) ORDER BY id",
            wanted,
        ):
            row = dict(m)
            if row["tool_calls"]:
                row["tool_calls"] = json.loads(row["tool_calls"])
            messages[row.pop("session_id")].append(row)
        batch = [(sid, sigs[sid], {"session_id": sid, "data": messages[sid]}) for sid in wanted]
        written += content_store._write(ep, batch, set())
        if start % (20 * CHUNK) == 0:
            say(f"  direct fill: {start + len(rows):,} of {len(sessions):,} sessions")
    store.derive(ep, gen)
    from django.db.models import F

    from hermes_ui.index.models import IndexSyncState

    IndexSyncState.objects.filter(pk=state.pk).update(generation=F("generation") + 1)
    return written

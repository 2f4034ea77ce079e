"""Reading transcripts into the content index, and dropping them again.

A sync asks ``due`` which indexed sessions need their transcript (re-)read:
never read, or listed with another message count or last activity since
(``signature``), plus the parents of sessions seen for the first time (an API
fork changes which transcript Hermes resolves its parent to). ``read``
fetches them with ``session_messages``, at most ``WORKERS`` calls in flight,
and writes each transcript under the id Hermes resolved it to, replacing only
the messages that changed. With nothing changed there is nothing due and no
call is made.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from hermes_ui.hermes import HermesError
from hermes_ui.hermes import errors as e
from hermes_ui.index import content, counts, stopping
from hermes_ui.index.models import ContentMessage, ContentSession, IndexedSession
from hermes_ui.platform.endpoints import Endpoint

WORKERS = 4  # session_messages calls in flight during a build
FLUSH_EVERY = 100  # transcripts written per transaction
FTS_TABLE = "index_content_fts"


@dataclass
class ReadReport:
    reads: int = 0
    messages: int = 0
    missing: int = 0
    pruned: int = 0


def signature(message_count, last_active) -> str:
    return f"{message_count}|{last_active!r}"


def due(ep: Endpoint) -> list[tuple[str, str]]:
    """(session id, signature) of every present session whose transcript must be read,
    most recently active first (what people look for is most often recent)."""
    listed = {
        sid: (signature(count, active), parent, order)
        for sid, count, active, parent, order in IndexedSession.objects.filter(
            **ep.scope(), vanished_at__isnull=True
        ).values_list(
            "session_id", "message_count", "last_active", "parent_session_id", "order_key"
        )
    }
    stored = dict(
        ContentSession.objects.filter(**ep.scope()).values_list("session_id", "signature")
    )
    todo = {sid for sid, (sig, _, _) in listed.items() if stored.get(sid) != sig}
    # A first-seen child may be an API fork: its parent now resolves to it.
    todo |= {
        parent
        for sid, (_, parent, _) in listed.items()
        if sid not in stored and parent and parent in listed
    }
    ordered = sorted(todo, key=lambda sid: (-listed[sid][2], sid))
    return [(sid, listed[sid][0]) for sid in ordered]


def read(
    ep: Endpoint, client, todo: list[tuple[str, str]], progress: Callable[[int, int], None]
) -> ReadReport:
    """Fetch and store the transcripts of ``todo``; ``progress(done, total)`` as it goes.

    A session Hermes no longer has (404) is skipped (the next sweep marks it
    vanished); any other Hermes error stops the build and propagates, and
    what was written so far stays (the next sync continues from there).
    """
    report = ReadReport()
    written: set[str] = set()
    batch: list[tuple[str, str, dict]] = []
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="index-content") as pool:
        queue = iter(todo)
        running = {}

        def submit() -> None:
            for sid, sig in queue:
                running[pool.submit(client.get_messages, sid)] = (sid, sig)
                return

        for _ in range(WORKERS):
            submit()
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    sid, sig = running.pop(future)
                    submit()
                    try:
                        batch.append((sid, sig, future.result()))
                    except (e.NotFound, e.InvalidInput):
                        report.missing += 1
                    report.reads += 1
                if len(batch) >= FLUSH_EVERY or not running:
                    report.messages += _write(ep, batch, written)
                    batch = []
                    progress(report.reads, len(todo))
        except (HermesError, stopping.SyncStopped):
            for future in running:
                future.cancel()
            report.messages += _write(ep, batch, written)
            raise
    return report


def _write(ep: Endpoint, batch: list[tuple[str, str, dict]], written: set[str]) -> int:
    """Store a batch of transcripts (each resolved transcript once per build) in a
    handful of statements: the first build writes ~10,000 of them."""
    if not batch:
        return 0
    now, scope = timezone.now(), ep.scope()
    transcripts: dict[str, list[content.Searchable]] = {}
    sessions = {}
    for sid, sig, payload in batch:
        resolved = payload["session_id"]
        messages = content.searchable(payload["data"])
        if resolved not in written:
            written.add(resolved)
            transcripts[resolved] = messages
        sessions[sid] = (resolved, sig, len(messages))
    with transaction.atomic():
        stored = _replace(ep, transcripts)
        known = {
            o.session_id: o
            for o in ContentSession.objects.filter(**scope, session_id__in=list(sessions))
        }
        create, update = [], []  # type: ignore[var-annotated]
        for sid, (resolved, sig, count) in sessions.items():
            row = known.get(sid) or ContentSession(**scope, session_id=sid)
            row.resolved_id, row.signature, row.messages, row.read_at = resolved, sig, count, now
            (update if row.pk else create).append(row)
        ContentSession.objects.bulk_create(create, batch_size=500)
        for row in update:
            row.save(update_fields=["resolved_id", "signature", "messages", "read_at"])
    return stored


def _replace(ep: Endpoint, transcripts: dict[str, list[content.Searchable]]) -> int:
    """Make the stored messages of each resolved id these; unchanged ones stay as they are."""
    old: dict[tuple[str, int], tuple[int, str]] = {}
    ids = list(transcripts)
    for start in range(0, len(ids), 500):
        rows = ContentMessage.objects.filter(**ep.scope(), session_id__in=ids[start : start + 500])
        for pk, sid, mid, text in rows.values_list("pk", "session_id", "message_id", "text"):
            old[(sid, mid)] = (pk, text)
    stale, fresh = [], []
    for resolved, messages in transcripts.items():
        new = {m.message_id: m for m in messages}
        for (sid, mid), (pk, text) in old.items():
            if sid == resolved and (mid not in new or new[mid].text != text):
                stale.append(pk)
        fresh += [
            ContentMessage(
                **ep.scope(),
                session_id=resolved,
                message_id=m.message_id,
                role=m.role,
                timestamp=m.timestamp,
                text=m.text,
            )
            for m in messages
            if old.get((resolved, m.message_id), (None, None))[1] != m.text
        ]
    for start in range(0, len(stale), 500):
        ContentMessage.objects.filter(pk__in=stale[start : start + 500]).delete()
    ContentMessage.objects.bulk_create(fresh, batch_size=500)
    return len(fresh)


def prune(ep: Endpoint) -> int:
    """Drop what no present session reads any more (vanished sessions, superseded
    resolutions); the number of messages dropped."""
    present = IndexedSession.objects.filter(**ep.scope(), vanished_at__isnull=True)
    sessions = ContentSession.objects.filter(**ep.scope())
    sessions.exclude(session_id__in=present.values("session_id")).delete()
    read = sessions.values("resolved_id")
    dropped, _ = ContentMessage.objects.filter(**ep.scope()).exclude(session_id__in=read).delete()
    if dropped:
        compact()
    return dropped


def erase(mine: Q, ids: list[str]) -> tuple[int, int]:
    """Remove every content row of ``ids`` (read for them, or stored under them).

    ``mine`` selects the endpoint's rows (``index.erase`` passes ``erasers.mine``,
    with the rows of no fingerprint); runs inside the caller's transaction. (sessions,
    messages) dropped.
    """
    sessions = ContentSession.objects.filter(
        mine & (Q(session_id__in=ids) | Q(resolved_id__in=ids))
    )
    dropped_sessions, _ = sessions.delete()
    dropped, _ = ContentMessage.objects.filter(mine, session_id__in=ids).delete()
    return dropped_sessions, dropped


def drop_all(ep: Endpoint) -> int:
    """``HERMES_INDEX_CONTENT=false``: keep no content of this endpoint at all."""
    ContentSession.objects.filter(endpoint=ep.id).delete()
    dropped, _ = ContentMessage.objects.filter(endpoint=ep.id).delete()
    if dropped:
        compact()
    return dropped


def compact() -> None:
    """Rewrite SQLite's full-text index so deleted messages leave no terms behind.

    FTS5 keeps a deleted row's terms in its segments until they are merged;
    'optimize' merges them all (with ``secure_delete`` the freed pages are
    zeroed). PostgreSQL's index holds no text beyond the row it indexes.
    """
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize')")  # noqa: S608


def completeness(
    ep: Endpoint, total: int | None = None, version: str | None = None
) -> tuple[int, int]:
    """(sessions whose transcript is indexed, sessions indexed); ``total`` when the
    caller has already counted the present sessions.

    Counted from the read records minus those of vanished sessions, both from
    indexes, rather than by matching every record to a present session on
    every search: a record of a session the index no
    longer holds at all cannot outlive it, as ``prune`` and deletion's erasure
    drop both together. ``version``: the sync state's, to cache the count (``counts``).
    """
    present = IndexedSession.objects.filter(**ep.scope(), vanished_at__isnull=True)
    if total is None:
        total = present.count()
    vanished = IndexedSession.objects.filter(**ep.scope(), vanished_at__isnull=False)
    read = ContentSession.objects.filter(**ep.scope())

    def done_count() -> int:
        return read.count() - read.filter(session_id__in=vanished.values("session_id")).count()

    done = counts.cached(ep, "content-done", version, done_count)
    return max(0, min(done, total)), total


def eta(done: int, total: int, started: float) -> float | None:
    """Seconds left at the rate so far (None before there is a rate)."""
    elapsed = time.monotonic() - started
    if done <= 0 or elapsed <= 0:
        return None
    return (total - done) * elapsed / done

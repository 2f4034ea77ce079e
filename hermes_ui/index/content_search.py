"""Searching the content index: hits grouped per transcript, ranked, keyset-paged.

Messages are stored under the session ``session_messages`` resolved them
to, so every session of a compression chain reads the tip's transcript and a
chain is one result. A result lists the sessions whose transcript it is
("read for"). Ranking is the full-text engine's (SQLite FTS5 ``bm25``,
PostgreSQL ``ts_rank``) of the best message in the transcript; pages continue
after the last (rank, session id) shown. Snippets come back with matches
between ``content.MARK_START`` and ``MARK_END``; ``highlight`` escapes the
text and only then adds ``<mark>``.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date

from django.db import connection
from django.db.models import Q
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from hermes_ui.endpoints import Endpoint
from hermes_ui.index import content
from hermes_ui.index.content_store import FTS_TABLE
from hermes_ui.index.models import ContentSession
from hermes_ui.index.queries import api_row, present
from hermes_ui.index.query_syntax import Query

# The SQL below is assembled from constants and ``_filters``' placeholders only;
# every value (the match expression included) travels as a parameter.
TABLE = "index_contentmessage"
SNIPPETS = 3  # per result


@dataclass
class Snippet:
    message_id: int
    role: str
    timestamp: float | None
    html: SafeString


@dataclass
class Result:
    session_id: str  # the resolved transcript
    hits: int
    score: float
    row: dict | None = None  # its index row, when indexed
    read_for: list[str] = field(default_factory=list)  # other sessions resolving here
    snippets: list[Snippet] = field(default_factory=list)


@dataclass
class Page:
    results: list[Result]
    transcripts: int  # matching transcripts in all
    messages: int  # matching messages in all
    next_after: str | None


def highlight(snippet: str) -> SafeString:
    """Escape a marked snippet, then turn its marks into ``<mark>`` elements."""
    first, *marked = snippet.split(content.MARK_START)
    out = [escape(first.replace(content.MARK_END, ""))]
    for piece in marked:
        hit, _, rest = piece.partition(content.MARK_END)
        out.append(f"<mark>{escape(hit)}</mark>{escape(rest.replace(content.MARK_END, ''))}")
    return mark_safe("".join(out))  # noqa: S308 - every piece of text is escaped above


def fts5_query(query: Query) -> str:
    """The terms as an FTS5 expression: each a quoted string, so no syntax gets through."""
    parts = []
    for term in query.terms:
        words = term.words
        if words:
            parts.append('"' + " ".join(words) + '"' + (" *" if term.prefix else ""))
    return " AND ".join(parts)


def ts_query(query: Query) -> str:
    """The terms as a PostgreSQL ``to_tsquery('simple', …)`` expression."""
    parts = []
    for term in query.terms:
        words = [f"'{w}'" for w in term.words]
        if words:
            if term.prefix:
                words[-1] += ":*"
            parts.append("(" + " <-> ".join(words) + ")")
    return " & ".join(parts)


def _stamp(day: date) -> float:
    return float(calendar.timegm(day.timetuple()))


def _filters(ep: Endpoint, query: Query) -> tuple[str, list]:
    sql, params = ["m.endpoint = %s", "m.endpoint_fp = %s"], [ep.id, ep.fingerprint]
    if query.role:
        sql.append("m.role = %s")
        params.append(query.role)
    if query.after:
        sql.append("m.timestamp >= %s")
        params.append(_stamp(query.after))
    if query.before:
        sql.append("m.timestamp < %s")
        params.append(_stamp(query.before))
    if query.source or query.kind or query.state:
        rows = present(ep)
        if query.source:
            rows = rows.filter(source=query.source)
        if query.kind:
            rows = rows.filter(kind=query.kind)
        if query.state == "open":
            rows = rows.filter(ended_at__isnull=True, end_reason="")
        elif query.state == "closed":
            rows = rows.filter(Q(ended_at__isnull=False) | ~Q(end_reason=""))
        inner, inner_params = rows.values("session_id").query.sql_with_params()
        sql.append(f"m.session_id IN ({inner})")
        params.extend(inner_params)
    return " AND ".join(sql), params


def _matches(where: str) -> str:
    """Matching messages as ``m`` (the content row) with ``score`` (lower is better).

    FTS5's rank is only available in a query on the FTS table alone, so that
    query is the inner one and the content rows are joined to it. ``LIMIT -1``
    keeps SQLite from flattening it: flattened, the planner may drive the join
    from the content table and run the full-text match once per row.
    """
    if connection.vendor == "postgresql":
        return (
            f"(SELECT m.*, -ts_rank(m.search, q) AS score FROM {TABLE} m, "  # noqa: S608
            f"to_tsquery('simple', %s) q WHERE m.search @@ q) m WHERE {where}"
        )
    return (
        f"(SELECT rowid AS r, rank AS score FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s "  # noqa: S608
        "LIMIT -1) x "
        f"JOIN {TABLE} m ON m.id = x.r WHERE {where}"
    )


def _snippets(match: str, pks: list[int]) -> dict[int, str]:
    """Marked snippets of these content rows, by row id."""
    holders = ", ".join(["%s"] * len(pks))
    if connection.vendor == "postgresql":
        options = (f"StartSel={content.MARK_START}, StopSel={content.MARK_END}, "
                   "MaxWords=24, MinWords=8, MaxFragments=1")  # fmt: skip
        sql = (
            f"SELECT id, ts_headline('simple', text, to_tsquery('simple', %s), '{options}') "  # noqa: S608
            f"FROM {TABLE} WHERE id IN ({holders})"
        )
    else:
        marks = f"'{content.MARK_START}', '{content.MARK_END}'"
        sql = (
            f"SELECT rowid, snippet({FTS_TABLE}, 0, {marks}, '…', 16) FROM {FTS_TABLE} "  # noqa: S608
            f"WHERE {FTS_TABLE} MATCH %s AND rowid IN ({holders})"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql, [match, *pks])
        return dict(cursor.fetchall())


def search(ep: Endpoint, query: Query, *, after: tuple[float, str] | None, limit: int) -> Page:
    """One page of transcripts matching ``query`` (which must have text)."""
    match = ts_query(query) if connection.vendor == "postgresql" else fts5_query(query)
    if not match:
        return Page([], 0, 0, None)
    where, params = _filters(ep, query)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.session_id, COUNT(*), MIN(score) FROM {_matches(where)} "  # noqa: S608
            "GROUP BY m.session_id",
            [match, *params],
        )
        groups = [(sid, hits, float(score)) for sid, hits, score in cursor.fetchall()]
    groups.sort(key=lambda g: (g[2], g[0]))
    total_messages = sum(g[1] for g in groups)
    groups_after = groups if after is None else [g for g in groups if (g[2], g[0]) > after]
    shown = groups_after[:limit]
    more = len(groups_after) > limit
    results = [Result(sid, hits, score) for sid, hits, score in shown]
    if results:
        _complete(ep, results, match, where, params)
    last = shown[-1] if shown else None
    next_after = f"{last[2]!r}:{last[0]}" if more and last else None
    return Page(results, len(groups), total_messages, next_after)


def _complete(ep: Endpoint, results: list[Result], match: str, where: str, params: list) -> None:
    ids = [r.session_id for r in results]
    by_id = {r.session_id: r for r in results}
    holders = ", ".join(["%s"] * len(ids))
    best: list[tuple] = []
    taken: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id, m.session_id, m.message_id, m.role, m.timestamp FROM "  # noqa: S608
            f"{_matches(where)} AND m.session_id IN ({holders}) ORDER BY score, m.message_id",
            [match, *params, *ids],
        )
        for row in cursor.fetchall():
            if taken.get(row[1], 0) < SNIPPETS:
                taken[row[1]] = taken.get(row[1], 0) + 1
                best.append(row)
    marked = _snippets(match, [row[0] for row in best]) if best else {}
    for pk, sid, message_id, role, stamp in best:
        by_id[sid].snippets.append(Snippet(message_id, role, stamp, highlight(marked.get(pk, ""))))
    fields = ("session_id", "title", "source", "kind", "message_count", "last_active",
              "ended_at", "end_reason", "parent_session_id", "former_parent_id")  # fmt: skip
    for values in present(ep).filter(session_id__in=ids).values(*fields):
        by_id[values["session_id"]].row = api_row(values)
    for sid, resolved in (
        ContentSession.objects.filter(**ep.scope(), resolved_id__in=ids)
        .order_by("session_id")
        .values_list("session_id", "resolved_id")
    ):
        if sid != resolved:
            by_id[resolved].read_for.append(sid)


def parse_after(text: str) -> tuple[float, str] | None:
    score, sep, session_id = (text or "").partition(":")
    if not sep or not session_id:
        return None
    try:
        return float(score), session_id
    except ValueError:
        return None

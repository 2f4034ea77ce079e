"""Searching the content index: hits grouped per transcript, ranked, keyset-paged.

Messages are stored under the session ``session_messages`` resolved them
to, so every session of a compression chain reads the tip's transcript and a
chain is one result. A result lists the sessions whose transcript it is
("read for").

A search ranks at most ``WINDOW`` matching messages: the most recently
indexed ones, read in the full-text index's own row order (which SQLite FTS5
and a PostgreSQL primary key give without sorting) with a ``LIMIT``. Ranking
every match instead costs one ``bm25`` per match, more than the whole page
may take for a common word. Within the window
the ranking is the engine's (FTS5 ``bm25``, PostgreSQL ``ts_rank``) of a
transcript's best message; results are grouped in Python, and only the
shown ones are completed (index rows, resolutions, snippets, in three
queries whatever the page size). When more than ``WINDOW`` messages match,
the page says so and the totals are lower bounds. Pages continue after the
last (rank, session id) shown, within the same window.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Q
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from hermes_ui.index import content
from hermes_ui.index.content_store import FTS_TABLE
from hermes_ui.index.models import ContentMessage, ContentSession, IndexedSession
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import facets, snippets, visibility, window_rank
from hermes_ui.search.queries import api_row, present
from hermes_ui.search.syntax import Query
from hermes_ui.web.links import session_url

# The SQL below is assembled from constants and ``_filters``' placeholders only;
# every value (the match expression included) travels as a parameter.
TABLE = "index_contentmessage"
SNIPPETS = 3  # per result
WINDOW = 1000  # matching messages ranked per search (see the module's doc)


@dataclass
class Snippet:
    message_id: int
    role: str
    timestamp: float | None
    pk: int  # the content row
    html: SafeString | str = ""  # filled for the results shown
    url: str = ""  # the session page anchored on the message, filled by ``link``


@dataclass
class Result:
    session_id: str  # the resolved transcript
    hits: int
    score: float
    row: dict | None = None  # its index row, when indexed
    read_for: list[str] = field(default_factory=list)  # other sessions resolving here
    snippets: list[Snippet] = field(default_factory=list)
    url: str = ""  # the session page, filled by ``link``


@dataclass
class Page:
    results: list[Result]
    transcripts: int  # matching transcripts (at least, when ``capped``)
    messages: int  # matching messages ranked (at most ``WINDOW``)
    next_after: str | None
    capped: bool = False  # more than ``WINDOW`` messages match
    window: int = WINDOW


def highlight(snippet: str) -> SafeString:
    """Escape a marked snippet, then turn its marks into ``<mark>`` elements."""
    first, *marked = snippet.split(content.MARK_START)
    out = [escape(first.replace(content.MARK_END, ""))]
    for piece in marked:
        hit, _, rest = piece.partition(content.MARK_END)
        out.append(f"<mark>{escape(hit)}</mark>{escape(rest.replace(content.MARK_END, ''))}")  # type: ignore[arg-type]
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


def _filters(ep: Endpoint, query: Query, user=None) -> tuple[str, list]:
    sql, params = ["m.endpoint = %s", "m.endpoint_fp = %s"], [ep.id, ep.fingerprint]
    if query.role:
        sql.append("m.role = %s")
        params.append(query.role)
    if query.after:
        sql.append("m.timestamp >= %s")
        params.append(_stamp(query.after))  # type: ignore[arg-type]
    if query.before:
        sql.append("m.timestamp < %s")
        params.append(_stamp(query.before))  # type: ignore[arg-type]
    # A transcript of a session the person may not see is never matched, so never
    # drawn as a snippet (``search.visibility``).
    limited = visibility.limits(user, ep.id)
    if query.has_filters or limited:
        rows = facets.restrict(
            visibility.visible(present(ep), user, endpoint_id=ep.id), ep, query.facets, user
        )
        if query.source:
            rows = rows.filter(source=query.source)
        if query.kind:
            rows = rows.filter(kind=query.kind)
        if query.state == "open":
            rows = rows.filter(ended_at__isnull=True, end_reason="")
        elif query.state == "closed":
            rows = rows.filter(Q(ended_at__isnull=False) | ~Q(end_reason=""))
        if query.reasons:
            rows = rows.filter(end_reason__in=query.reasons)
        inner, inner_params = rows.values("session_id").query.sql_with_params()
        sql.append(f"m.session_id IN ({inner})")
        params.extend(inner_params)
    return " AND ".join(sql), params


def _ranked(where: str) -> str:
    """Up to ``WINDOW`` + 1 matching messages, most recently indexed first:
    (row id, score (lower is better), session id, message id, role, timestamp).

    ``CROSS JOIN`` makes SQLite drive the join from the full-text index, in
    its row order, so the ``LIMIT`` stops the scan; ``bm25`` is computed only
    for the rows that pass the filters.
    """
    if connection.vendor == "postgresql":
        # PostgreSQL would answer "ORDER BY id DESC LIMIT" by walking the primary
        # key backwards and testing every row, a whole-table read per search for a
        # rare word. The materialised step makes it match through the GIN index
        # first; only the window's rows are then read whole and ranked.
        return (
            f"WITH hits AS MATERIALIZED (SELECT m.id FROM {TABLE} m "  # noqa: S608
            f"WHERE m.search @@ to_tsquery('simple', %s) AND {where}) "
            "SELECT m.id, -ts_rank(m.search, q), m.session_id, m.message_id, m.role, "
            f"m.timestamp FROM (SELECT id FROM hits ORDER BY id DESC LIMIT %s) h "
            f"JOIN {TABLE} m ON m.id = h.id CROSS JOIN to_tsquery('simple', %s) q "
            "ORDER BY m.id DESC"
        )
    # No ``bm25()`` here: it walks the phrase's whole doclist (``window_rank``).
    return (
        f"SELECT m.id, substr(m.text, 1, {window_rank.CHARS}), m.session_id, m.message_id, "  # noqa: S608
        "m.role, m.timestamp "
        f"FROM {FTS_TABLE} CROSS JOIN {TABLE} m ON m.id = {FTS_TABLE}.rowid "
        f"WHERE {FTS_TABLE} MATCH %s AND {where} ORDER BY {FTS_TABLE}.rowid DESC LIMIT %s"
    )


def search(
    ep: Endpoint, query: Query, *, after: tuple[float, str] | None, limit: int, user=None
) -> Page:
    """One page of transcripts matching ``query`` (which must have text), for ``user``
    (whose feature filters, such as ``new:yes``, may depend on who asks)."""
    match = ts_query(query) if connection.vendor == "postgresql" else fts5_query(query)
    if not match:
        return Page([], 0, 0, None)
    where, params = _filters(ep, query, user)
    with connection.cursor() as cursor:
        args = [match, *params, WINDOW + 1]
        if connection.vendor == "postgresql":
            args.append(match)  # the ranking's own query, after the window
        cursor.execute(_ranked(where), args)
        hits = cursor.fetchall()
    capped = len(hits) > WINDOW
    hits = hits[:WINDOW]
    if connection.vendor != "postgresql":
        # SQLite gave the window's texts: rank them here (``window_rank``).
        ranks = window_rank.scores([h[1] for h in hits], query)
        hits = [(h[0], rank, *h[2:]) for h, rank in zip(hits, ranks, strict=True)]
    hits = sorted(hits, key=lambda h: (float(h[1]), h[3], h[0]))
    groups: dict[str, Result] = {}
    for pk, score, sid, message_id, role, stamp in hits:
        result = groups.get(sid)
        if result is None:
            result = groups[sid] = Result(sid, 0, float(score))
        result.hits += 1
        if len(result.snippets) < SNIPPETS:
            result.snippets.append(Snippet(message_id, role, stamp, pk))
    ranked = sorted(groups.values(), key=lambda r: (r.score, r.session_id))
    if after is not None:
        ranked = [r for r in ranked if (r.score, r.session_id) > after]
    shown, more = ranked[:limit], len(ranked) > limit
    if shown:
        _complete(ep, shown, query, user)
    last = shown[-1] if shown else None
    next_after = f"{last.score!r}:{last.session_id}" if more and last else None
    return Page(shown, len(groups), len(hits), next_after, capped=capped, window=WINDOW)


def _complete(ep: Endpoint, results: list[Result], query: Query, user=None) -> None:
    ids = [r.session_id for r in results]
    by_id = {r.session_id: r for r in results}
    pks = [s.pk for r in results for s in r.snippets]
    texts = dict(ContentMessage.objects.filter(pk__in=pks).values_list("pk", "text"))
    for result in results:
        for snippet in result.snippets:
            snippet.html = highlight(snippets.marked(texts.get(snippet.pk, ""), query))
    fields = (
        "session_id",
        "title",
        "source",
        "kind",
        "message_count",
        "last_active",
        "ended_at",
        "end_reason",
        "parent_session_id",
        "former_parent_id",
    )
    # Looked up by id alone (vanished rows dropped here, resolutions sorted
    # here): with ``vanished_at`` or an ORDER BY in the query, SQLite picks an
    # index that reads every row of the endpoint.
    rows = IndexedSession.objects.filter(**ep.scope(), session_id__in=ids)
    for values in rows.values(*fields, "vanished_at"):
        if values.pop("vanished_at") is None:
            by_id[values["session_id"]].row = api_row(values)
    resolutions = ContentSession.objects.filter(**ep.scope(), resolved_id__in=ids)
    hidden = set()
    if visibility.limits(user, ep.id):
        named = set(resolutions.values_list("session_id", flat=True))
        shown = visibility.visible(
            present(ep).filter(session_id__in=named), user, endpoint_id=ep.id
        )
        hidden = named - set(shown.values_list("session_id", flat=True))
    for sid, resolved in sorted(resolutions.values_list("session_id", "resolved_id")):
        if sid != resolved and sid not in hidden:
            by_id[resolved].read_for.append(sid)


def link(ep: Endpoint, page: Page) -> None:
    """Session page links of the shown results, built here rather than by a
    template tag per snippet (about 80 per page)."""
    for result in page.results:
        result.url = session_url(ep.id, result.session_id)
        # A dot id already carries ``?id=`` (see ``links.session_url``).
        joint = "&" if "?" in result.url else "?"
        for snippet in result.snippets:
            upto = urlencode({"upto": snippet.message_id})
            snippet.url = f"{result.url}{joint}{upto}#msg-{snippet.message_id}"


def parse_after(text: str) -> tuple[float, str] | None:
    score, sep, session_id = (text or "").partition(":")
    if not sep or not session_id:
        return None
    try:
        return float(score), session_id
    except ValueError:
        return None

"""Sessions: the index search, one session, its transcript, its lineage.

The search runs the index page's own form (``IndexQuery``, which parses the
box with ``syntax.parse``) and its queries, so the syntax, the feature
filters and their errors are the search box's. Session ids may hold ``/``:
the action comes before the id, which is the rest of the path.
"""

from __future__ import annotations

from typing import Literal

from django.conf import settings
from ninja import Query, Router

from hermes_ui.access.scope import seen_or_none
from hermes_ui.api import paging
from hermes_ui.api.errors import bad_request
from hermes_ui.api.routes import common
from hermes_ui.hermes import client_for
from hermes_ui.index import freshness
from hermes_ui.lineage import picture
from hermes_ui.platform.redaction import Redactor, message, session_row
from hermes_ui.review import shown
from hermes_ui.search import badges, content_search, listing, queries
from hermes_ui.search.forms import IndexQuery
from hermes_ui.tags import tagging
from hermes_ui.web.roles import SUPPORT

router = Router(tags=["sessions"])
ROW_FIELDS = (
    "id",
    "title",
    "source",
    "kind",
    "model",
    "message_count",
    "started_at",
    "ended_at",
    "end_reason",
    "last_active",
    "parent_session_id",
    "preview",
)


@router.get("/e/{endpoint}/sessions", summary="Search the index (the search box's syntax)")
def search(
    request,
    endpoint: str,
    q: str = Query("", max_length=200),
    source: str = Query("", max_length=200),
    kind: Literal["", "root", "branch", "continuation", "delegate", "orphan"] = "",
    state: Literal["", "open", "closed"] = "",
    cursor: str = "",
    limit: int = Query(listing.PAGE_SIZE, ge=1, le=200),
    within: Literal["titles", "transcripts"] = "titles",
):
    """``q`` takes the search box's syntax (words, ``"phrases"``, ``prefix*``, ``source:``,
    ``kind:``, ``open:``, ``reason:``, ``tag:``, ``label:``, ``queue:``, ``new:`` …).
    ``within=titles`` (default) pages the index table (ids, titles, previews and the
    filters); ``within=transcripts`` pages the transcripts whose messages match the words."""
    ep = common.endpoint(request, endpoint, SUPPORT)
    if not 1 <= limit <= 200:
        raise bad_request("limit: between 1 and 200.")
    if within not in ("titles", "transcripts"):
        raise bad_request("within: titles or transcripts.")
    at = paging.decode(cursor)
    form = IndexQuery(
        {
            "q": q,
            "source": source,
            "kind": kind,
            "state": state,
            "snap": at.get("snap", ""),
            "after": at.get("after", ""),
            "cafter": at.get("cafter", ""),
        }
    )
    if not form.is_valid():
        raise bad_request(_reason(form), "bad_query")
    params = form.cleaned_data
    query = listing.effective_query(params)
    if within == "transcripts":
        return _transcripts(ep, query, params, limit, request.user)
    fresh = freshness.of(ep)
    snapshot = params["snap"] if params["after"] else fresh.generation
    page = queries.search_query(
        ep,
        query,
        snapshot=snapshot,
        after=params["after"],
        limit=limit,
        present_total=fresh.total,
        user=request.user,
    )
    badges.attach(ep, page.rows, request.user)
    later = {"snap": page.snapshot, "after": page.next_after}
    return {
        "data": [_row(row) for row in page.rows],
        "total": page.total,
        "changed_since": page.changed_since,
        "next_cursor": paging.encode(later) if page.next_after else None,
        "notes": _notes(query),
    }


def _transcripts(ep, query, params, limit, user) -> dict:
    if not settings.HERMES_INDEX_CONTENT:
        raise bad_request("Transcript search is switched off here.", "content_search_off")
    if not query.has_text:
        raise bad_request("Searching transcripts needs words in q.", "bad_query")
    found = content_search.search(ep, query, after=params["cafter"], limit=limit, user=user)
    data = [
        {
            "session_id": result.session_id,
            "hits": result.hits,
            "score": result.score,
            "read_for": result.read_for,
            "session": _row(result.row) if result.row else None,
            "messages": [
                {"id": s.message_id, "role": s.role, "timestamp": s.timestamp}
                for s in result.snippets
            ],
        }
        for result in found.results
    ]
    return {
        "data": data,
        "total": found.transcripts,
        "capped": found.capped,
        "next_cursor": paging.encode({"cafter": found.next_after}) if found.next_after else None,
        "notes": _notes(query),
    }


def _notes(query) -> list[str]:
    """What the search box would say above its results: an unknown ``name:`` searched
    as words (``syntax.Note``); a near-miss of a filter is a 400 already."""
    return [note.message for note in query.notes]


def _row(row: dict) -> dict:
    shown_row = {name: row.get(name) for name in ROW_FIELDS}
    shown_row["badges"] = [badge.text for badge in row.get("badges", ())]
    return shown_row


def _reason(form) -> str:
    return " ".join(str(m) for errors in form.errors.values() for m in errors)


@router.get("/e/{endpoint}/session/{path:session_id}", summary="One session")
def session(request, endpoint: str, session_id: str, redact: bool = True):
    """The session's row (its title masked as in exports unless a reviewer or admin asks
    ``redact=false``), its lineage ids, tags and the labels of completed reviews."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    row = client_for(ep).get_session(session_id).as_row()  # as session exports give it
    # A parent or root of a source the person may not see is not named (access.scope).
    row["parent_session_id"] = seen_or_none(request.user, ep.id, row.get("parent_session_id"))
    redactor = Redactor(common.masked(request, redact, ep))
    labels = shown.for_session(ep, session_id, request.user)
    indexed = queries.session_row(ep, session_id) or {}
    family = queries.lineage(ep, session_id) if indexed else None
    return {
        "endpoint": ep.id,
        "masked": redactor.enabled,
        "session": session_row(redactor, row),
        "lineage": {
            "parent_id": row.get("parent_session_id"),
            "root_id": seen_or_none(request.user, ep.id, family.root_id) if family else None,
            "kind": indexed.get("kind"),
        },
        "tags": [tag.name for tag in tagging.of_session(ep, session_id)],
        "labels": [
            {
                "message_id": label.message_id,
                "field": label.field,
                "value": redactor.value(label.value),
                "queue_id": label.review.item.queue_id,
                "authoritative": label.review.authoritative,
                "reviewer": label.review.reviewer_name,
            }
            for label in labels.session + labels.messages
        ],
        "queues": [
            {"queue_id": item.queue_id, "message_id": item.message_id, "state": item.state}
            for item in labels.items
        ],
    }


@router.get("/e/{endpoint}/messages/{path:session_id}", summary="The active transcript")
def messages(request, endpoint: str, session_id: str, redact: bool = True):
    """Hermes' resolved transcript (a compression root resolves to its tip); masked as in
    exports: always for support, for others unless ``redact=false``."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    payload = client_for(ep).get_messages(session_id)
    redactor = Redactor(common.masked(request, redact, ep))
    return {
        "endpoint": ep.id,
        "session_id": session_id,
        "resolved_session_id": payload.get("session_id"),
        "masked": redactor.enabled,
        "data": [message(redactor, row) for row in payload["data"]],
    }


@router.get("/e/{endpoint}/lineage/{path:session_id}", summary="The session's family")
def lineage(request, endpoint: str, session_id: str):
    """Every indexed session of the lineage (none folded), its edges and the totals of the
    tree and of the compression chain holding the session."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    shown_picture = picture.for_session(ep, session_id, budget=10**6, draw=False, user=request.user)
    if shown_picture.display.groups:  # delegates folded: read again with every one open
        opened = frozenset(group.parent_id for group in shown_picture.display.groups)
        while True:
            shown_picture = picture.for_session(
                ep,
                session_id,
                expanded=opened,
                budget=10**6,
                draw=False,
                live=False,
                user=request.user,
            )
            more = {group.parent_id for group in shown_picture.display.groups} - opened
            if not more:
                break
            opened |= more
    nodes, edges = [], []
    for node in shown_picture.display.nodes():
        nodes.append(
            {
                "id": node.id,
                "kind": node.kind,
                "ghost": node.ghost,
                "current": node.current,
                "tip": node.tip,
                "title": node.row.get("title"),
                "message_count": node.row.get("message_count"),
                "badges": list(node.row.get("marks", ())),
            }
        )
        for child in node.children:
            if hasattr(child, "id"):
                edges.append({"parent": node.id, "child": child.id, "kind": child.kind})
    return {
        "session_id": session_id,
        "root_id": shown_picture.root_id,
        "tip_id": shown_picture.tip_id,
        "chain": shown_picture.chain,
        "truncated": shown_picture.truncated,
        "nodes": nodes,
        "edges": edges,
        "totals": {
            "tree": _total(shown_picture.tree_total),
            "chain": _total(shown_picture.chain_total),
        },
    }


def _total(total) -> dict:
    return {
        "sessions": total.sessions,
        "input_tokens": total.input_tokens,
        "output_tokens": total.output_tokens,
        "cache_read_tokens": total.cache_read_tokens,
        "cache_write_tokens": total.cache_write_tokens,
        "reasoning_tokens": total.reasoning_tokens,
        "estimated_cost_usd": total.estimated_cost_usd,
        "actual_cost_usd": total.actual_cost_usd,
    }

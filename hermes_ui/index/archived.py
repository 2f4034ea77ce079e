"""Sessions Hermes archived, inferred: a root that left both lists but still answers GET.

Since hermes-agent 0.16 archive soft-hides a session: the default list and the
administrative list (``include_children``) both skip it, ``GET`` by id still
answers, the API exposes no ``archived`` field and cannot archive or restore
(#37099, #88231). The index keeps such a row (``listed`` False after a read by
id confirmed it, ``vanished_at`` empty). A root in that state is almost always
archived, so it is marked "archived on Hermes (inferred: not listed, still
readable)". A child the lists skip (continuation, delegate, fork) is not: it
keeps "not in the default list". ``archived:yes`` finds them; the default
index hides them, as Hermes does (``archived:no`` is the default).

A Hermes newer than 0.19 reports ``archived`` (and can archive and restore,
``changes.flags``): where a row carries the reported value, that value
decides, never the inference.
"""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.index import badges, counts, facets, sync_state
from hermes_ui.index.badges import Badge
from hermes_ui.index.models import IndexedSession
from hermes_ui.platform.prepared import Prepared

LABEL = "archived on Hermes (inferred: not listed, still readable)"
RESTORE = (
    "Restore is not in the Hermes API: an operator restores an archived session with "
    "Hermes' own tools on its host; the dashboard shows it again once it is listed."
)
REPORTED_LABEL = "archived on Hermes"
HELP = "archived:yes sessions Hermes archived (hidden by default, archived:no)"
# Indexed, not listed, a root: what a read by id confirmed after it left the lists;
# or, on a Hermes that reports it, archived as reported.
INFERRED = Q(archived__isnull=True, listed=False, parent_session_id="", vanished_at__isnull=True)
ARCHIVED = INFERRED | Q(archived=True, vanished_at__isnull=True)


def is_archived(row: dict) -> bool:
    """From an index row (API shape with ``listed``, and ``archived`` where reported)."""
    if isinstance(row.get("archived"), bool):
        return row["archived"]
    return row.get("listed") is False and not row.get("parent_session_id")


def parse(text: str) -> bool:
    value = text.strip().lower()
    if value in ("yes", "true", "1"):
        return True
    if value in ("no", "false", "0"):
        return False
    raise ValueError("archived: takes yes or no")


def sessions(endpoint, wanted: bool, user) -> Q:
    return ARCHIVED if wanted else ~ARCHIVED


def hides_any(endpoint) -> bool:
    """Whether the default (archived:no) hides a row of this endpoint at all.

    Asked on every index page. At 100,000 rows, none archived, the answer walks
    every root (22 ms of a 34 ms page), so it is cached per state of the index,
    like the page's counts: a row becomes archived-looking only through a sync.
    """
    state = sync_state.stored(endpoint)  # the freshness line read it for the same page
    at = counts.version(state) if state is not None else None
    found = IndexedSession.objects.filter(ARCHIVED, **endpoint.scope())
    return bool(counts.cached(endpoint, "archived-any", at, lambda: int(found.exists())))


def read_badges(endpoint, ids: list[str], user, rows: dict[str, dict] | None = None):
    inferred = Badge("archived", LABEL + ". " + RESTORE, "grey", "archived")
    reported = Badge(
        "archived", REPORTED_LABEL + " (Restore on the session page)", "grey", "archived"
    )
    if rows is None or not all(sid in rows and "listed" in rows[sid] for sid in ids):
        fields = ("session_id", "listed", "parent_session_id", "archived")
        found = IndexedSession.objects.filter(ARCHIVED, **endpoint.scope(), session_id__in=ids)
        rows = {values["session_id"]: values for values in found.values(*fields)}
    return {
        sid: [reported if isinstance(rows[sid].get("archived"), bool) else inferred]
        for sid in ids
        if sid in rows and is_archived(rows[sid])
    }


def pinned_badges(endpoint, ids: list[str], user, rows: dict[str, dict] | None = None):
    """A pin, where a Hermes newer than 0.19 reports one."""
    badge = Badge("pinned", "Pinned on Hermes: its list always shows it.", "blue", "pinned")
    if rows is None or not all(sid in rows and "pinned" in rows[sid] for sid in ids):
        found = IndexedSession.objects.filter(pinned=True, **endpoint.scope(), session_id__in=ids)
        rows = {sid: {"pinned": True} for sid in found.values_list("session_id", flat=True)}
    return {sid: [badge] for sid in ids if sid in rows and rows[sid].get("pinned") is True}


# On every session page: compiled once (platform.prepared).
_ARCHIVED_ONE = Prepared.any_row(
    lambda ep, fp, sid: IndexedSession.objects.filter(
        ARCHIVED, endpoint=ep, endpoint_fp=fp, session_id=sid
    )
)


def state(endpoint, session_id: str) -> bool:
    return _ARCHIVED_ONE.found(endpoint.id, endpoint.fingerprint, session_id)


def register() -> None:
    facets.register(
        "archived", parse=parse, sessions=sessions, help=HELP, default=False, hides=hides_any
    )
    badges.register("archived", read_badges, takes_rows=True)
    badges.register("pinned", pinned_badges, takes_rows=True)

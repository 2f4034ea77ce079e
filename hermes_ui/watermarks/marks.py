"""The index's view of watermarks: the ``new:`` filter and the "new" badge.

A session is new for a user when they opened its page before and the index
row now counts more messages than it had then. A session the user never
opened is not new (there is no look to compare with): ``new:yes`` lists what
changed since you looked, not everything you have not read; ``new:no`` is
everything else, never-opened sessions included.
"""

from __future__ import annotations

from django.db.models import Q
from django.db.models.expressions import RawSQL

from hermes_ui.index.models import IndexedSession
from hermes_ui.search.badges import Badge
from hermes_ui.search.facets import Facet
from hermes_ui.watermarks.models import Watermark

HELP = "new:yes sessions with messages since you last opened them (new:no the others)"
_YES = {"yes", "true", "1", "y"}
_NO = {"no", "false", "0", "n"}
CHUNK = 500


def parse(text: str) -> bool:
    lowered = text.lower()
    if lowered not in _YES | _NO:
        raise ValueError(f"takes yes or no (not {text!r}).")
    return lowered in _YES


def sessions(endpoint, wanted: bool, user) -> Q:
    """Index rows (by id) that count more messages than the user's watermark: one walk
    over the user's watermarks, each joined to its index row by the row's unique key
    (a join the ORM cannot spell without a relation between the two tables)."""
    if user is None or not user.is_authenticated:
        return Q(pk__in=[]) if wanted else ~Q(pk__in=[])
    params = [user.pk, endpoint.id, endpoint.fingerprint]
    newer = Q(pk__in=RawSQL(_GROWN, params))  # noqa: S611 - constant SQL, values as parameters
    return newer if wanted else ~newer


FACET = Facet("new", parse, sessions, help=HELP)

_GROWN = (
    f"SELECT s.id FROM {Watermark._meta.db_table} w "  # noqa: S608 - table names only
    f"JOIN {IndexedSession._meta.db_table} s ON s.endpoint = w.endpoint "
    "AND s.endpoint_fp = w.endpoint_fp AND s.session_id = w.session_id "
    "WHERE w.user_id = %s AND w.endpoint = %s AND w.endpoint_fp = %s "
    "AND s.message_count > w.message_count"
)


def badges(endpoint, ids: list[str], user, rows: dict[str, dict] | None = None):
    """ "new N" on sessions grown since the user's look. ``rows``: the page's index rows
    by id (present ones, with ``message_count``), so they are not read again."""
    if user is None or not user.is_authenticated:
        return {}
    found: dict[str, list[Badge]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        seen = dict(
            Watermark.objects.filter(
                user=user, **endpoint.scope(), session_id__in=chunk
            ).values_list("session_id", "message_count")
        )
        if not seen:
            continue
        for session_id, count in _counts(endpoint, list(seen), rows):
            more = (count or 0) - seen[session_id]
            if more > 0:
                title = f"{more} message{'s' if more != 1 else ''} since you last opened it"
                found[session_id] = [Badge(f"new {more}", title, "blue", "new")]
    return found


def _counts(endpoint, ids: list[str], rows: dict[str, dict] | None):
    """(id, message count now) of the sessions still present."""
    if rows is not None and all(session_id in rows for session_id in ids):
        return [(session_id, rows[session_id].get("message_count")) for session_id in ids]
    # By unique key alone (with ``vanished_at`` SQLite walks the endpoint's rows).
    now = IndexedSession.objects.filter(**endpoint.scope(), session_id__in=ids)
    return [
        (session_id, count)
        for session_id, count, gone in now.values_list("session_id", "message_count", "vanished_at")
        if not gone
    ]

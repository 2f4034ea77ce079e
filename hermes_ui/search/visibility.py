"""What of the index a person may see: the one rule (``access.rules``) applied to its rows.

Every list, count, facet and selection drawn from the index goes through
``visible``; a page acting on one session it did not list (bulk, compare,
export) asks ``may_act``. Nothing here decides by itself: it only asks
``access_of(user)``, so the rule stays in one place.
"""

from __future__ import annotations

from hermes_ui.access.rules import SUPPORT, access_of


def limits(user, endpoint_id: str | None = None, needed: str = SUPPORT) -> bool:
    """True when ``user``'s rows must be filtered (``user`` None: the system, no limit).

    With ``endpoint_id``: rows of that endpoint only, so a grant of ``needed`` on the
    whole endpoint needs no filter either (the query and its counts stay the fast ones
    an admin on ``*`` gets; ``manage.py bench --only access``).
    """
    if user is None:
        return False
    access = access_of(user)
    if access.everything:
        return False
    return endpoint_id is None or not access.has(needed, endpoint_id)


def partial(user, endpoint_id: str) -> bool:
    """True when ``user`` sees only some sessions of ``endpoint_id`` (a source limit):
    the endpoint's own totals are then not theirs to see."""
    return limits(user) and access_of(user).source_limited(endpoint_id)


def visible(rows, user, needed: str = SUPPORT, endpoint_id: str | None = None):
    """``rows`` (``IndexedSession``, or any model naming endpoint and source) that
    ``user`` may see with ``needed``; unchanged for the system and for admins on ``*``,
    and, for rows of ``endpoint_id`` only, for a grant on that whole endpoint."""
    if not limits(user, endpoint_id, needed):
        return rows
    return rows.filter(access_of(user).session_q(needed, only_endpoint=endpoint_id))


def sources(user, endpoint_id: str, names: list[str]) -> list[str]:
    """The source names ``user`` may see sessions of on ``endpoint_id``."""
    if not limits(user):
        return names
    access = access_of(user)
    if not access.source_limited(endpoint_id):
        return names if access.sees(endpoint_id) else []
    return [name for name in names if access.sees(endpoint_id, name)]


def may_act(user, endpoint_id: str, session_id: str, needed: str = SUPPORT) -> bool:
    """May ``user`` act with ``needed`` on the session ``session_id`` of ``endpoint_id``?

    Whole-endpoint grants answer at once; a source-limited person's answer
    needs the session's source (the index's copy, else Hermes' row), and a
    session neither knows is no session they may act on.
    """
    from hermes_ui.access.scope import session_source

    access = access_of(user)
    if access.has(needed, endpoint_id):
        return True
    if not access.has(needed, endpoint_id, any_source=True):
        return False
    source = session_source(endpoint_id, session_id)
    return source is not None and access.has(needed, endpoint_id, source)


def still_may_act(user, endpoint_id: str, session_id: str, needed: str = SUPPORT) -> bool:
    """``may_act`` with the person's grants read afresh: a job acting on a selection
    long after it was confirmed asks this before each session (a grant may be gone)."""
    from hermes_ui.access.rules import forget

    forget(user)
    return user is not None and may_act(user, endpoint_id, session_id, needed)


def allowed_ids(user, endpoint, ids: list[str], needed: str = SUPPORT) -> list[str]:
    """``ids`` of ``endpoint`` that ``user`` may act on with ``needed``, in their order.

    One index query for a source-limited person (a session the index does not
    hold yet cannot be checked, so it is left out); none for a whole-endpoint grant.
    """
    from hermes_ui.index.models import IndexedSession

    access = access_of(user)
    if access.has(needed, endpoint.id):
        return list(ids)
    if not access.has(needed, endpoint.id, any_source=True):
        return []
    keep: set[str] = set()
    for start in range(0, len(ids), 500):
        rows = IndexedSession.objects.filter(
            **endpoint.scope(), vanished_at__isnull=True, session_id__in=ids[start : start + 500]
        ).filter(access.session_q(needed))
        keep.update(rows.values_list("session_id", flat=True))
    return [session_id for session_id in ids if session_id in keep]

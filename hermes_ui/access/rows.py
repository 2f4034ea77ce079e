"""The one rule for rows that name a session by endpoint and id only, and for people.

Review items, notes, mentions and notices keep a session's endpoint and id
but not its source; for a source-limited person the source is read from the
index (a subquery), so ``visible`` stays one query. ``may_see`` answers the
same for one session, and ``people`` lists who holds any grant at all (whom
a mention or a mail can reach), each then asked with ``access_of``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import OuterRef, Q, QuerySet, Subquery

from hermes_ui.access.models import SUPPORT
from hermes_ui.access.rules import Access, access_of

SOURCE_ALIAS = "_hermes_source"


def _access(who) -> Access:
    return who if isinstance(who, Access) else access_of(who)


def _source(endpoint: str, session: str) -> Subquery:
    from hermes_ui.index.models import IndexedSession

    return Subquery(
        IndexedSession.objects.filter(endpoint=OuterRef(endpoint), session_id=OuterRef(session))
        .order_by("vanished_at")
        .values("source")[:1]
    )


def visible(
    rows: QuerySet,
    who,
    needed: str = SUPPORT,
    *,
    endpoint: str = "endpoint",
    session: str = "session_id",
) -> QuerySet:
    """``rows`` kept to the sessions ``who`` (a user or an ``Access``) may see with ``needed``.

    ``endpoint`` and ``session`` are the rows' field paths. A session the
    index does not know is hidden from a source-limited person (its source
    is unknown), never shown.
    """
    access = _access(who)
    limited = [ep for ep in access.endpoint_ids(needed) if not access.has(needed, ep)]
    if not limited:
        ids = access.endpoint_ids(needed)
        if access.everything and set(ids) == set(settings.HERMES_ENDPOINTS):
            return rows  # the fast path: every session of every endpoint
        return rows.filter(access.endpoint_q(needed, endpoint=endpoint))
    rows = rows.alias(**{SOURCE_ALIAS: _source(endpoint, session)})
    return rows.filter(access.session_q(needed, endpoint=endpoint, source=SOURCE_ALIAS))


def may_see(who, endpoint: str, session_id: str, needed: str = SUPPORT) -> bool:
    """May ``who`` see (with ``needed``) the session ``session_id`` of ``endpoint``?"""
    access = _access(who)
    if access.has(needed, endpoint):
        return True
    if not access.has(needed, endpoint, any_source=True) or not session_id:
        return False
    from hermes_ui.access.scope import session_source

    return access.has(needed, endpoint, session_source(endpoint, session_id))


def people() -> QuerySet:
    """Active accounts with any grant (own, a group's, or the settings' group map)."""
    held = Q(is_superuser=True) | Q(grants__isnull=False) | Q(idp_groups__grants__isnull=False)
    mapped = getattr(settings, "HERMES_UI_GROUP_ROLES", None)
    if mapped:
        held |= Q(idp_groups__name__in=list(mapped))
    return get_user_model().objects.filter(held, is_active=True).distinct()

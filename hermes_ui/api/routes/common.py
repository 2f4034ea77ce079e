"""What every route starts from: the endpoint in the path, the caller's role, masking.

Each route asks the one rule (``hermes_ui.access``): ``endpoint`` settles that the
person may see the endpoint at all (a 404 as for one nobody configured), then their
role *there*; ``session`` settles that they may see the session (a source-limited
person gets Hermes' own "not found" for a session of another source).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from hermes_ui.access import scope
from hermes_ui.access.rules import RANK, SUPPORT, access_of, role_here
from hermes_ui.hermes.ids import check_path_id
from hermes_ui.index.models import IndexedSession
from hermes_ui.platform.endpoints import Endpoint, get_endpoint
from hermes_ui.web import masking


def _door(request, endpoint_id: str, session_id: str | None = None) -> None:
    """``access.scope.check``, its hidden session answered as Hermes answers a missing one."""
    try:
        scope.check(request, endpoint_id, session_id)
    except scope.HiddenSession as hidden:
        raise hidden.as_hermes_error() from None


def endpoint(request, endpoint_id: str, role: str, session_id: str | None = None) -> Endpoint:
    """The endpoint named in the path, for ``role`` or higher on it (and on the session's
    source, given ``session_id``): 404 if the person may not see it or none is configured.

    The session id is checked for its shape (a 400) before it is looked up.
    """
    _door(request, endpoint_id)
    ep = get_endpoint(endpoint_id)
    if session_id is not None:
        check_path_id(session_id)  # IdError: a 400 with its message
        _door(request, endpoint_id, session_id)
    here = role_here(request, endpoint_id)
    if here is None or RANK[here] < RANK[role]:
        raise PermissionDenied(f"This needs the {role} role.")
    return ep


def sessions(request, ep: Endpoint, session_ids, role: str) -> None:
    """Every session of a write that names several: each one the person may see with
    ``role``; the first that is hidden answers as a session Hermes does not have."""
    access = access_of(request.user)
    if not access.source_limited(ep.id):
        return
    for each in session_ids:
        source = scope.session_source(ep.id, each)
        if source is None or not access.sees(ep.id, source):
            raise scope.HiddenSession(ep.id, each).as_hermes_error()
        if not access.has(role, ep.id, source):
            raise PermissionDenied(f"This needs the {role} role.")


def visible(request, ep: Endpoint, session_ids: list[str]) -> list[str]:
    """``session_ids`` less those of sources the person may not see (in their order)."""
    access = access_of(request.user)
    if access.everything or not access.source_limited(ep.id):
        return session_ids
    seen = set(
        IndexedSession.objects.filter(
            access.session_q(), endpoint=ep.id, session_id__in=session_ids
        ).values_list("session_id", flat=True)
    )
    return [each for each in session_ids if each in seen]


def session_id(value: str) -> str:
    check_path_id(value)  # IdError: a 400 with its message
    return value


def masked(request, redact: bool, ep: Endpoint) -> bool:
    """Masked as ``web.masking`` says, with the person's role on this endpoint (support
    here gets the masked text even when they are an admin elsewhere)."""
    return masking.masked(request.user, redact) or role_here(request, ep.id) == SUPPORT

"""The rule at the door of every ``/e/<endpoint>/`` route: 404 for what a person may not see.

An endpoint without a grant answers as an endpoint that is not configured; a
session of a source outside a person's grants answers as a session Hermes
does not have. The page is the same either way, so a 404 tells nothing.
"""

from __future__ import annotations

from django.http import Http404

from hermes_ui.access.rules import SOURCE_ATTR, access_of
from hermes_ui.hermes import errors as e


class HiddenSession(Http404):
    """A session the person may not see: drawn as Hermes' own "not found"."""

    def __init__(self, endpoint: str, session_id: str):
        super().__init__(f"Session not found: {session_id}")
        self.endpoint = endpoint
        self.session_id = session_id

    def as_hermes_error(self) -> e.NotFound:
        text = f"Session not found: {self.session_id}"
        return e.NotFound(
            text,
            code="session_not_found",
            operation="session_get",
            status=404,
            provider_message=text,
        )


def unknown_endpoint(endpoint: str) -> Http404:
    # Word for word platform.endpoints.get_endpoint's answer for an id nobody configured.
    return Http404(f"No Hermes endpoint is configured with id {endpoint!r}.")


def session_source(endpoint: str, session_id: str) -> str | None:
    """The session's source: the index's copy, else Hermes' own row; None if neither has it."""
    from hermes_ui.index.models import IndexedSession

    row = (
        IndexedSession.objects.filter(endpoint=endpoint, session_id=session_id)
        .order_by("vanished_at")
        .values_list("source", flat=True)
        .first()
    )
    if row is not None:
        return row
    from django.conf import settings

    from hermes_ui.hermes.client import client_for

    ep = settings.HERMES_ENDPOINTS.get(endpoint)
    if ep is None:
        return None
    try:
        return client_for(ep).get_session(session_id).source or ""
    except e.HermesError:
        return None


def check(request, endpoint: str, session_id: str | None = None) -> None:
    """Raise a 404 unless the person may see ``endpoint`` (and the session ``session_id``)."""
    access = access_of(request.user)
    if access.role_on(endpoint, any_source=True) is None:
        raise unknown_endpoint(endpoint)
    if not session_id or not access.depends_on_source(endpoint):
        return
    source = session_source(endpoint, session_id)
    if source is None:
        if access.source_limited(endpoint):
            raise HiddenSession(endpoint, session_id)
        return  # not found anywhere: the view answers as it does; the whole-endpoint role holds
    if not access.sees(endpoint, source):
        raise HiddenSession(endpoint, session_id)
    setattr(request, SOURCE_ATTR, source)


class EndpointAccessMiddleware:
    """Runs ``check`` before every view whose URL names an endpoint.

    The API routes are left to ``hermes_ui.api.auth`` (their person is known
    only after the bearer token is read), which asks the same ``check``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        endpoint = view_kwargs.get("endpoint")
        if endpoint is None or request.path.startswith("/api/"):
            return None
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None  # LoginRequiredMiddleware answered already, or the view is open
        session_id = view_kwargs.get("session_id")
        if session_id is None:
            session_id = request.GET.get("id") or None
        check(request, endpoint, session_id)
        return None


def seen_or_none(user, endpoint: str, session_id: str | None) -> str | None:
    """``session_id`` if the person may open it, else None: a parent or root of another
    source is not named to a source-limited person (not its id, not a link to it)."""
    if not session_id:
        return session_id
    access = access_of(user)
    if not access.source_limited(endpoint):
        return session_id  # every source of this endpoint is theirs
    source = session_source(endpoint, session_id)
    return session_id if source is not None and access.sees(endpoint, source) else None

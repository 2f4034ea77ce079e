"""The session page's compare panel: siblings to compare with, and the verdicts naming it.

Siblings come from the index (cheap, no Hermes call); the panel says nothing
about sessions the index has not seen yet. The page itself only holds a lazy
region (``{% compare_panel %}``); ``views.session_panel`` fills it.
"""

from hermes_ui.compare import verdicts
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries, visibility
from hermes_ui.web import links

MAX_SIBLINGS = 20


def context(endpoint: Endpoint, session_id: str, parent_id: str | None, user=None) -> dict:
    """The panel for ``user``: siblings, verdicts and the parent they may see only."""
    hidden_parent = (
        parent_id
        and visibility.limits(user, endpoint.id)
        and not visibility.allowed_ids(user, endpoint, [parent_id])
    )
    if hidden_parent:
        parent_id = None  # a parent of a hidden source is not named
    siblings = []
    if parent_id:
        found = (
            visibility.visible(queries.present(endpoint), user, endpoint_id=endpoint.id)
            .filter(parent_session_id=parent_id)
            .exclude(session_id=session_id)
            .order_by("started_at", "session_id")
            .values_list("session_id", "title")[:MAX_SIBLINGS]
        )
        siblings = [
            {"id": sid, "title": title, "url": links.compare_url(endpoint.id, session_id, sid)}
            for sid, title in found
        ]
    verdicts_here = list(verdicts.for_session(endpoint, session_id))
    if visibility.limits(user, endpoint.id):
        others = [v.other(session_id) for v in verdicts_here]
        seen = set(visibility.allowed_ids(user, endpoint, others))
        verdicts_here = [v for v in verdicts_here if v.other(session_id) in seen]
    judged = [
        {
            "verdict": v,
            "other": v.other(session_id),
            "other_url": links.session_url(endpoint.id, v.other(session_id)),
            "url": links.compare_url(endpoint.id, session_id, v.other(session_id)),
            "preferred_here": v.preferred_id == session_id,
        }
        for v in verdicts_here
    ]
    return {
        "endpoint": endpoint,
        "session_id": session_id,
        "siblings": siblings,
        "judged": judged,
        "parent_url": links.compare_url(endpoint.id, parent_id, session_id) if parent_id else "",
    }


def url(endpoint_id: str, session_id: str, parent_id: str | None) -> str:
    """The panel's own address; the parent (from the page's Hermes row) rides along."""
    query = {"parent": parent_id} if parent_id else {}
    return links.session_url(endpoint_id, session_id, "compare_panel", **query)

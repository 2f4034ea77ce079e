"""The session page's compare panel: siblings to compare with, and the verdicts naming it.

Siblings come from the index (cheap, no Hermes call); the panel says nothing
about sessions the index has not seen yet. The page itself only holds a lazy
region (``{% compare_panel %}``); ``views.session_panel`` fills it.
"""

from hermes_ui.compare import verdicts
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries
from hermes_ui.web import links

MAX_SIBLINGS = 20


def context(endpoint: Endpoint, session_id: str, parent_id: str | None) -> dict:
    siblings = []
    if parent_id:
        found = (
            queries.present(endpoint)
            .filter(parent_session_id=parent_id)
            .exclude(session_id=session_id)
            .order_by("started_at", "session_id")
            .values_list("session_id", "title")[:MAX_SIBLINGS]
        )
        siblings = [
            {"id": sid, "title": title, "url": links.compare_url(endpoint.id, session_id, sid)}
            for sid, title in found
        ]
    judged = [
        {
            "verdict": v,
            "other": v.other(session_id),
            "other_url": links.session_url(endpoint.id, v.other(session_id)),
            "url": links.compare_url(endpoint.id, session_id, v.other(session_id)),
            "preferred_here": v.preferred_id == session_id,
        }
        for v in verdicts.for_session(endpoint, session_id)
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

"""Entry points into comparison from other features' pages."""

from django import template

from hermes_ui.compare import verdicts
from hermes_ui.compare.views import compare_url as _compare_url
from hermes_ui.index import queries
from hermes_ui.web import links

register = template.Library()
MAX_SIBLINGS = 20


@register.simple_tag
def compare_url(endpoint_id, a_id, b_id):
    return _compare_url(endpoint_id, a_id, b_id)


@register.inclusion_tag("compare/_session_panel.html")
def compare_panel(endpoint, session):
    """A session page's siblings to compare with, and the verdicts naming it.

    Siblings come from the index (cheap, no Hermes call); the panel says
    nothing about sessions the index has not seen yet.
    """
    siblings = []
    if session.parent_id:
        found = (
            queries.present(endpoint).filter(parent_session_id=session.parent_id)
            .exclude(session_id=session.id).order_by("started_at", "session_id")
            .values_list("session_id", "title")[:MAX_SIBLINGS]
        )  # fmt: skip
        siblings = [
            {"id": sid, "title": title, "url": _compare_url(endpoint.id, session.id, sid)}
            for sid, title in found
        ]
    judged = [
        {
            "verdict": v,
            "other": v.other(session.id),
            "other_url": links.session_url(endpoint.id, v.other(session.id)),
            "url": _compare_url(endpoint.id, session.id, v.other(session.id)),
            "preferred_here": v.preferred_id == session.id,
        }
        for v in verdicts.for_session(endpoint, session.id)
    ]
    return {
        "endpoint": endpoint,
        "session": session,
        "siblings": siblings,
        "judged": judged,
        "parent_url": _compare_url(endpoint.id, session.parent_id, session.id)
        if session.parent_id
        else "",
    }

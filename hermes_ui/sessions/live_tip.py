"""The live tip of a compressed session when Hermes' own read does not follow the chain.

hermes-agent 0.19 resolves ``/messages`` of a compression root or continuation
to the chain's tip; 0.15.2 returns the compressed session's own rows and id.
The page must still name where the conversation continues (and send turns
there), so the tip is worked out from the index the way the provider resolves
it (``lineage.tip``). None when Hermes already resolved it, the session is not
compressed, or the index does not know the chain yet.
"""

from __future__ import annotations

from hermes_ui.hermes import Session
from hermes_ui.lineage.graph.tip import compression_tip
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries
from hermes_ui.web import links


def unresolved_tip(ep: Endpoint, session: Session, resolved_id: str) -> str | None:
    if not session.compressed or resolved_id != session.id:
        return None
    found = queries.lineage(ep, session.id)
    if found is None:
        return None
    tip = compression_tip(Tree(found.rows), session.id)
    return tip if tip != session.id else None


def context(ep: Endpoint, session: Session, resolved_id: str) -> dict:
    tip = unresolved_tip(ep, session, resolved_id)
    return {"live_tip": tip, "live_tip_url": links.session_url(ep.id, tip) if tip else None}

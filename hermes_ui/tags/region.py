"""The session page's tags region: what it shows, for whom."""

from __future__ import annotations

from hermes_ui.access.rules import RANK, access_of, role_here
from hermes_ui.hermes import client_for
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries
from hermes_ui.tags import protection, tagging
from hermes_ui.tags.forms import AddTagForm
from hermes_ui.tags.models import Tag
from hermes_ui.web.roles import REVIEWER


def context(request, ep: Endpoint, session_id: str, *, error: str = "") -> dict:
    """One query for the session's tags, one for the list when the user may tag."""
    tags = tagging.of_session(ep, session_id)
    # The role on this endpoint (and this session's source): the one rule.
    role = role_here(request, ep.id)
    can_tag = role is not None and RANK[role] >= RANK[REVIEWER]
    addable = list(Tag.objects.exclude(pk__in=[t.pk for t in tags])) if can_tag else []
    # Keep tags this person may not take off: no remove button for them.
    locked = (
        {t.pk for t in tags if protection.removal_refusal(request.user, t, ep.id)}
        if can_tag
        else set()
    )
    return {
        "endpoint": ep,
        "session_id": session_id,
        "session_tags": tags,
        "can_tag": can_tag,
        "locked": locked,
        "can_manage_tags": access_of(request.user).instance_admin,
        "add_form": AddTagForm(addable) if addable else None,
        "tags_error": error,
    }


def ensure_exists(ep: Endpoint, session_id: str) -> None:
    """Tags go on sessions the index knows, or Hermes does (raises ``HermesError``)."""
    if not queries.present(ep).filter(session_id=session_id).exists():
        client_for(ep).get_session(session_id)


def form_error(form) -> str:
    return " ".join(str(m) for errors in form.errors.values() for m in errors) or "Pick a tag."
